import SluiceCalls
import SluiceJSON

/// The call methods' params, checked as docs/protocol.md section 6, "Calls" says.
enum CallParams {
    /// A user name: 1 to 128 characters from `[A-Za-z0-9._~@-]`.
    static func user(_ params: RPCParams, _ name: String, required: Bool) throws(RPCError) -> String? {
        let value = required ? try params.requiredString(name) : try params.optionalString(name)
        guard let value else { return nil }
        guard isValidUser(value) else {
            throw .invalidParams("'\(name)' must be 1 to 128 characters from [A-Za-z0-9._~@-]")
        }
        return value
    }

    static func isValidUser(_ name: String) -> Bool { CallParamsCheck.isValidUser(name) }

    /// 32 lower-case hex digits; anything else cannot name a call (1014 after the checks, as
    /// an unknown handle is), but a missing or non-string one is -32602.
    static func callID(_ params: RPCParams) throws(RPCError) -> String {
        let id = try params.requiredString("callId")
        guard id.utf8.count == 32, id.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else {
            throw .unknownCall
        }
        return id
    }

    /// `limit`, `cursor`, `from`, `to` of `callLog` (the admin API reads its query the same way).
    static func logQuery(_ params: RPCParams, maxLimit: Int, defaultLimit: Int) throws(RPCError) -> CallLogQuery {
        var query = CallLogQuery(limit: defaultLimit)
        if let value = params.members["limit"], !value.isNull {
            guard let limit = value.intValue, limit >= 1, limit <= maxLimit else {
                throw .invalidParams("'limit' must be a whole number from 1 to \(maxLimit)")
            }
            query.limit = Int(limit)
        }
        for name in ["from", "to"] {
            guard let value = params.members[name], !value.isNull else { continue }
            guard let ms = value.intValue, ms >= 0 else { throw .invalidParams("'\(name)' must be ms since the epoch, 0 or more") }
            if name == "from" { query.from = ms } else { query.to = ms }
        }
        if let text = try params.optionalString("cursor") {
            guard let cursor = CallLogCursor(encoded: text) else { throw .invalidParams("'cursor' is not one a page gave") }
            query.cursor = cursor
        }
        return query
    }
}

/// The user-name rule, for the admin API's query too.
public enum CallParamsCheck {
    public static func isValidUser(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 128 else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x7E || byte == 0x40 || byte == 0x2D
        }
    }
}
