import SluiceJSON

/// One followed stream that speaks now (`activeSpeakers`): its name and smoothed level.
public struct ActiveSpeaker: Sendable, Hashable {
    public var name: String
    /// dBov, -50 to 0 while speaking.
    public var level: Double

    public init(name: String, level: Double) {
        self.name = name
        self.level = level
    }

    /// Nil unless `value` is `{name, level}`.
    init?(_ value: JSONValue) {
        guard let name = value["name"]?.stringValue, let level = value["level"]?.doubleValue else { return nil }
        self.init(name: name, level: level)
    }
}

extension SluiceSession {
    /// Follows who speaks among the streams `names` lists and those whose name starts with
    /// `prefix`, on any node (docs/protocol.md section 6, "Speakers"): `.activeSpeakers` and
    /// `.dominantSpeaker` notifications follow. A new set replaces the old; neither stops.
    public func followSpeakers(names: [String] = [], prefix: String? = nil) async throws {
        var params = JSONObject()
        if !names.isEmpty { params["names"] = .array(names.map { .string($0) }) }
        if let prefix { params["prefix"] = .string(prefix) }
        _ = try await call("speakers", params: .object(params))
    }
}
