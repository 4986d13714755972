/// Where Redis is and who Sluice is there: `redis://[[user]:password@]host[:port][/db]`
/// (`cluster.redis`). The user and password (percent-encoded where they hold `:`, `@`, `/` or
/// `%`) are sent with `AUTH` on every connection; no TLS (hiredis 0.14 has none), so a
/// `rediss://` URL is refused rather than half-honoured. The password is never printed:
/// `description` shows `***` in its place, and every error and log line uses `description`.
public struct RedisURL: Sendable, Equatable, CustomStringConvertible {
    public static let defaultPort = 6379

    public var host: String
    public var port: Int
    /// The logical database (`SELECT`), 0 unless the path names one.
    public var database: Int
    /// An ACL user (Redis 6); nil sends `AUTH password` alone (the `default` user).
    public var user: String?
    public var password: String?

    static let hostCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
    static let ipv6Characters = Set("0123456789abcdefABCDEF:.")

    public init(host: String, port: Int = RedisURL.defaultPort, database: Int = 0, user: String? = nil,
                password: String? = nil) {
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.password = password
    }

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var problem: String
        public var description: String { problem }
    }

    /// Parses `text`; the error says what is wrong in words a config reader can print.
    public init(parsing text: String) throws(ParseError) {
        let scheme = "redis://"
        guard text.hasPrefix(scheme) else {
            let given = text.split(separator: ":", maxSplits: 1).first.map(String.init) ?? text
            // Never echo what may hold a password.
            throw ParseError(problem: text.contains("://")
                ? "must be a redis:// URL, not a \(given): one" + (given == "rediss" ? " (hiredis 0.14 has no TLS; see docs/cluster.md)" : "")
                : text.contains("@") ? "must be a redis://user:password@host:port/db URL"
                : "must be a redis://host:port/db URL, not \"\(text)\"")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var databasePart: Substring?
        if let slash = rest.firstIndex(of: "/") {
            databasePart = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        user = nil
        password = nil
        if let at = rest.lastIndex(of: "@") {
            (user, password) = try Self.credentials(rest[..<at])
            rest = rest[rest.index(after: at)...]
        }
        if rest.contains("?") || databasePart?.contains("?") == true {
            throw ParseError(problem: "has query options, which Sluice does not know")
        }
        var hostPart = rest
        var portPart: Substring?
        if rest.hasPrefix("[") {
            // [v6]:port
            guard let close = rest.firstIndex(of: "]") else {
                throw ParseError(problem: "has an IPv6 host without its closing ]")
            }
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ParseError(problem: "has junk after the IPv6 host") }
                portPart = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            hostPart = rest[..<colon]
            portPart = rest[rest.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw ParseError(problem: "has no host") }
        // A host is a name or IPv4 address, or an IPv6 address in brackets; anything else
        // (a stray bracket or colon, spaces, control bytes) would not print back as it came.
        let bracketed = rest.hasPrefix("[")
        let allowed = bracketed ? RedisURL.ipv6Characters : RedisURL.hostCharacters
        guard hostPart.allSatisfy(allowed.contains), !bracketed || hostPart.contains(":") else {
            throw ParseError(problem: "has host \"\(hostPart)\"; it must be a host name, an IPv4 address or an IPv6 address in []")
        }
        host = String(hostPart)
        port = RedisURL.defaultPort
        if let portPart {
            guard let number = Int(portPart), (1...65535).contains(number) else {
                throw ParseError(problem: "has port \"\(portPart)\"; it must be a number from 1 to 65535")
            }
            port = number
        }
        database = 0
        if let databasePart, !databasePart.isEmpty {
            // Redis ships 16 databases; a cluster config may use any a server was set up with.
            guard let number = Int(databasePart), number >= 0, number <= 1_000_000 else {
                throw ParseError(problem: "has database \"\(databasePart)\"; it must be a number (0 to 1000000)")
            }
            database = number
        }
    }

    /// `user:password`, `:password` or `password`-less `user:`; each part percent-decoded.
    private static func credentials(_ text: Substring) throws(ParseError) -> (String?, String?) {
        guard let colon = text.firstIndex(of: ":") else {
            throw ParseError(problem: "has user info without a password; write redis://user:password@host or redis://:password@host")
        }
        let user = try decode(text[..<colon], "user")
        let password = try decode(text[text.index(after: colon)...], "password")
        guard !password.isEmpty else { throw ParseError(problem: "has an empty password") }
        return (user.isEmpty ? nil : user, password)
    }

    /// Percent-decodes one part; the error names the part, never its value.
    private static func decode(_ text: Substring, _ part: String) throws(ParseError) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else {
                    throw ParseError(problem: "has a bad %-escape in its \(part)")
                }
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else if byte < 0x21 || byte == 0x7F || byte == UInt8(ascii: "/") {
                throw ParseError(problem: "has a space, control byte or / in its \(part) (percent-encode it)")
            } else {
                bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self), !decoded.contains(where: { $0.isNewline }) else {
            throw ParseError(problem: "has a \(part) that is not UTF-8 text on one line")
        }
        return decoded
    }

    /// A user as the URL must spell it to parse back the same: `%`, `:`, `@`, `/`, spaces and
    /// control bytes percent-encoded (a decoded user may hold any of them).
    static func encode(_ part: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in part.utf8 {
            if byte < 0x21 || byte == 0x7F || byte == UInt8(ascii: "%") || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "/") {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            } else {
                bytes.append(byte)  // the rest of the UTF-8 as it is: it decodes as it came
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The URL with the password shown as `***`: what logs, errors and the admin API print.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let credentials = password == nil ? "" : "\(Self.encode(user ?? "")):***@"
        return "redis://\(credentials)\(shownHost):\(port)/\(database)"
    }
}
