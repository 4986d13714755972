/// One reply of Redis, copied out of hiredis's `redisReply` (which is freed at once), so
/// nothing of C outlives the call that made it.
public enum RedisReply: Sendable, Equatable {
    /// A bulk string: binary, as stored.
    case string([UInt8])
    /// A status line such as `OK` or `PONG`.
    case status(String)
    case integer(Int64)
    case array([RedisReply])
    case null
    /// An error reply (`ERR ...`, `WRONGTYPE ...`): the command failed, the connection is fine.
    case error(String)

    /// The bulk string as UTF-8 text, or nil for any other kind (or bytes that are not UTF-8).
    public var text: String? {
        switch self {
        case .string(let bytes): return String(validating: bytes, as: UTF8.self)
        case .status(let line): return line
        default: return nil
        }
    }

    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var elements: [RedisReply]? {
        if case .array(let values) = self { return values }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// A short name for logs and errors, never the whole value.
    public var kindDescription: String {
        switch self {
        case .string: return "a bulk string"
        case .status(let line): return "status \(line)"
        case .integer(let value): return "integer \(value)"
        case .array(let values): return "an array of \(values.count)"
        case .null: return "nil"
        case .error(let message): return "error \(message)"
        }
    }
}
