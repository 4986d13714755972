/// Where Redis is: `redis://host[:port][/db]` (`cluster.redis`). No password or TLS yet, so a
/// URL with user info or another scheme is refused rather than half-honoured.
public struct RedisURL: Sendable, Equatable, CustomStringConvertible {
    public static let defaultPort = 6379

    public var host: String
    public var port: Int
    /// The logical database (`SELECT`), 0 unless the path names one.
    public var database: Int

    static let hostCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
    static let ipv6Characters = Set("0123456789abcdefABCDEF:.")

    public init(host: String, port: Int = RedisURL.defaultPort, database: Int = 0) {
        self.host = host
        self.port = port
        self.database = database
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
            throw ParseError(problem: text.contains("://")
                ? "must be a redis:// URL, not a \(given): one"
                : "must be a redis://host:port/db URL, not \"\(text)\"")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var databasePart: Substring?
        if let slash = rest.firstIndex(of: "/") {
            databasePart = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        if rest.contains("@") {
            throw ParseError(problem: "has a user or password, which Sluice does not send (use a Redis on a private address)")
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

    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "redis://\(shownHost):\(port)/\(database)"
    }
}
