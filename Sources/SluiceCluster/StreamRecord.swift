import SluiceJSON
import SluiceJSONParser

/// A stream's entry in the cluster (`sluice:stream:<name>`, JSON): who originates it.
public struct StreamRecord: Sendable, Equatable {
    public var name: String
    /// The app key it was published under.
    public var app: String
    /// The nodeId of its origin, the only node that may refresh or release the claim.
    public var node: String
    /// Its simulcast layers (rids, lowest first); empty for a single layer.
    public var layers: [String]

    public init(name: String, app: String, node: String, layers: [String] = []) {
        self.name = name
        self.app = app
        self.node = node
        self.layers = layers
    }

    public var json: JSONValue {
        ["name": .string(name), "app": .string(app), "node": .string(node), "layers": .array(layers.map { .string($0) })]
    }

    /// Nil for anything that is not a record (the release and refresh scripts then treat the
    /// key as someone else's).
    public init?(json value: JSONValue) {
        guard let name = value["name"]?.stringValue, let app = value["app"]?.stringValue,
              let node = value["node"]?.stringValue, !node.isEmpty,
              let layerValues = value["layers"]?.arrayValue else { return nil }
        var layers: [String] = []
        for layer in layerValues {
            guard let rid = layer.stringValue else { return nil }
            layers.append(rid)
        }
        self.init(name: name, app: app, node: node, layers: layers)
    }

    public init?(bytes: [UInt8]) {
        guard let value = try? JSONValue.parse(bytes) else { return nil }
        self.init(json: value)
    }
}
