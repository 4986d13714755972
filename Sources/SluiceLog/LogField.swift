/// An id a log line is about, given at the call as a typed value, never pulled out of the
/// message afterwards. A JSON line carries each as a field of its own (docs/config.md,
/// `log.format`), so a log store can search by session, stream or call; a text line shows
/// only its message, which names them as it always did.
public enum LogField: Sendable, Equatable {
    /// The session's id (`connect`'s `sessionId`).
    case session(String)
    /// The signaling connection's number, which a session has before it connects.
    case connection(Int)
    /// A publish or play handle.
    case handle(String)
    case stream(String)
    case call(String)
    /// This server's `cluster.nodeId` (every line of a node in a cluster), or the node a line
    /// is about when it is another: then `peer`.
    case node(String)
    case peer(String)
    /// A client's or another server's address, `host:port`.
    case remote(String)
    case app(String)
    /// A rate-limited line: how many like it were held back since the last one written.
    case suppressed(Int)

    /// The field's name in a JSON line.
    public var key: String {
        switch self {
        case .session: return "session"
        case .connection: return "connection"
        case .handle: return "handle"
        case .stream: return "stream"
        case .call: return "call"
        case .node: return "node"
        case .peer: return "peer"
        case .remote: return "remote"
        case .app: return "app"
        case .suppressed: return "suppressed"
        }
    }
}

/// `log.format`.
public enum LogFormat: String, Sendable {
    case text, json
}
