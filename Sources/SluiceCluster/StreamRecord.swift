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
    /// What the origin publishes, once its publish was negotiated (nil before, and in records
    /// of nodes that do not write it): another node answers its players from this.
    public var codecs: RecordCodecs?

    public init(name: String, app: String, node: String, layers: [String] = [], codecs: RecordCodecs? = nil) {
        self.name = name
        self.app = app
        self.node = node
        self.layers = layers
        self.codecs = codecs
    }

    public var json: JSONValue {
        var object: JSONObject = ["name": .string(name), "app": .string(app), "node": .string(node),
                                  "layers": .array(layers.map { .string($0) })]
        if let codecs { object["codecs"] = codecs.json }
        return .object(object)
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
        // Lenient here: a record whose codecs this node cannot read is still the name's claim
        // (the refresh and release scripts see only `node`); it just offers no codecs.
        let codecs = value["codecs"].flatMap { RecordCodecs(json: $0) }
        self.init(name: name, app: app, node: node, layers: layers, codecs: codecs)
    }

    public init?(bytes: [UInt8]) {
        guard let value = try? JSONValue.parse(bytes) else { return nil }
        self.init(json: value)
    }
}
