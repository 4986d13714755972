import SluiceJSON
import SluiceJSONParser

/// What a node says about itself on every heartbeat (`sluice:node:<nodeId>`, JSON).
public struct NodeRecord: Sendable, Equatable {
    public var nodeId: String
    /// `host:port` other nodes reach this one's relay at (`cluster.relayAddress`).
    public var relayAddress: String
    /// Where clients and other nodes reach its signaling (`ws://host:port/ws`).
    public var signalingURL: String
    public var workers: Int
    public var sessions: Int
    public var streams: Int
    public var players: Int
    /// Wall-clock milliseconds since 1970 of the heartbeat that wrote the record.
    public var updatedAtMs: Int64
    /// The node drains for a restart: it takes no new sessions, streams or players, and no
    /// node names it as a place to go (`serverDraining`'s `servers`).
    public var draining = false

    public init(nodeId: String, relayAddress: String, signalingURL: String, workers: Int = 0, sessions: Int = 0,
                streams: Int = 0, players: Int = 0, updatedAtMs: Int64 = 0) {
        self.nodeId = nodeId
        self.relayAddress = relayAddress
        self.signalingURL = signalingURL
        self.workers = workers
        self.sessions = sessions
        self.streams = streams
        self.players = players
        self.updatedAtMs = updatedAtMs
    }

    /// `serverDraining`'s and the admin API's places to go: the other nodes that take sessions.
    public static func placesToGo(_ nodes: [NodeRecord], besides nodeId: String) -> [String] {
        nodes.filter { $0.nodeId != nodeId && !$0.draining }.map(\.signalingURL).sorted()
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "nodeId": .string(nodeId), "relayAddress": .string(relayAddress), "signalingURL": .string(signalingURL),
            "workers": JSONValue(workers), "sessions": JSONValue(sessions), "streams": JSONValue(streams),
            "players": JSONValue(players), "updatedAt": JSONValue(updatedAtMs)]
        // Only when set, so that records read the same to nodes of a version without drains.
        if draining { object["draining"] = true }
        return .object(object)
    }

    /// Reads a record back; nil for anything that is not one (another program's key, junk).
    public init?(json value: JSONValue) {
        guard let nodeId = value["nodeId"]?.stringValue, !nodeId.isEmpty,
              let relay = value["relayAddress"]?.stringValue,
              let signaling = value["signalingURL"]?.stringValue else { return nil }
        func count(_ key: String) -> Int? {
            guard let number = value[key]?.intValue, number >= 0, number <= Int64(Int32.max) else { return nil }
            return Int(number)
        }
        guard let workers = count("workers"), let sessions = count("sessions"), let streams = count("streams"),
              let players = count("players"), let updated = value["updatedAt"]?.intValue else { return nil }
        if let draining = value["draining"], draining.boolValue == nil { return nil }
        self.init(nodeId: nodeId, relayAddress: relay, signalingURL: signaling, workers: workers, sessions: sessions,
                  streams: streams, players: players, updatedAtMs: updated)
        self.draining = value["draining"]?.boolValue ?? false
    }

    public init?(bytes: [UInt8]) {
        guard let value = try? JSONValue.parse(bytes) else { return nil }
        self.init(json: value)
    }
}
