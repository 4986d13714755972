import SluiceJSON
import SluiceJSONParser

/// One node's call users' sessions (`sluice:presence:<nodeId>`, JSON), written with each
/// heartbeat and expiring with the node: `onlineUsers` and `call` on any node see them
/// (docs/cluster.md, "Calls across nodes").
public struct PresenceRecord: Sendable, Equatable {
    public struct Session: Sendable, Equatable {
        public var session: String
        public var app: String
        public var user: String
        /// The calls the user is in, as this node knows them.
        public var calls: [String]

        public init(session: String, app: String, user: String, calls: [String] = []) {
            self.session = session
            self.app = app
            self.user = user
            self.calls = calls
        }
    }

    public var node: String
    public var sessions: [Session]

    /// Sessions one record may list: a record over it is junk (it would be another program's).
    public static let maxSessions = 100_000

    public init(node: String, sessions: [Session]) {
        self.node = node
        self.sessions = sessions
    }

    public var json: JSONValue {
        ["node": .string(node), "sessions": .array(sessions.map { session in
            ["s": .string(session.session), "a": .string(session.app), "u": .string(session.user),
             "c": .array(session.calls.map { .string($0) })]
        })]
    }

    /// Nil for anything that is not a whole record: one bad session makes the record junk (a
    /// half-read presence would take users offline).
    public init?(json value: JSONValue) {
        guard let node = value["node"]?.stringValue, (1...64).contains(node.utf8.count),
              let items = value["sessions"]?.arrayValue, items.count <= Self.maxSessions else { return nil }
        var sessions: [Session] = []
        sessions.reserveCapacity(items.count)
        for item in items {
            guard let session = item["s"]?.stringValue, (1...64).contains(session.utf8.count),
                  let app = item["a"]?.stringValue, (1...128).contains(app.utf8.count),
                  let user = item["u"]?.stringValue, (1...128).contains(user.utf8.count),
                  let callValues = item["c"]?.arrayValue, callValues.count <= 64 else { return nil }
            var calls: [String] = []
            for call in callValues {
                guard let id = call.stringValue, (1...64).contains(id.utf8.count) else { return nil }
                calls.append(id)
            }
            sessions.append(Session(session: session, app: app, user: user, calls: calls))
        }
        self.init(node: node, sessions: sessions)
    }

    public init?(bytes: [UInt8]) {
        guard let value = try? JSONValue.parse(bytes) else { return nil }
        self.init(json: value)
    }
}
