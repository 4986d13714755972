/// Why a Redis command gave no usable answer.
public enum RedisError: Error, Equatable, CustomStringConvertible {
    /// The connection could not be made or broke (refused, reset, timed out, protocol junk).
    /// The connection is closed; the next command reconnects.
    case connection(String)
    /// Redis answered with an error reply (the connection is fine).
    case reply(String)
    /// Redis refused this node's credentials, or wants some it was not given (`WRONGPASS`,
    /// `NOAUTH`): no command will succeed until the config changes. The connection is closed.
    case authentication(String)
    /// Redis answered, but not in the shape the caller needs (a wrong type, a value that is
    /// not ours): the data is junk, the connection is fine.
    case unexpected(String)

    public var description: String {
        switch self {
        case .connection(let why): return "Redis connection: \(why)"
        case .reply(let message): return "Redis error: \(message)"
        case .authentication(let message): return "Redis refused the credentials of cluster.redis: \(message)"
        case .unexpected(let what): return "unexpected Redis answer: \(what)"
        }
    }

    /// True when the fault is the link, not the data: what ClusterMember counts as "Redis lost".
    public var isConnectionLoss: Bool {
        if case .connection = self { return true }
        return false
    }

    /// A link the server closed or reset (hiredis's words for EOF, ECONNRESET and EPIPE): seen
    /// at once on the next command, unlike a server that does not answer.
    public var isClosedByServer: Bool {
        guard case .connection(let why) = self else { return false }
        return why.contains("Server closed the connection") || why.contains("Connection reset") || why.contains("Broken pipe")
    }
}
