import Foundation

/// The signaling URL, checked to point into 127.0.0.0/8: the load tester never sends anything
/// past the loopback network. `localhost` is taken as 127.0.0.1 (a resolver could answer ::1
/// or anything else).
public struct LoopbackURL: Sendable, Equatable {
    /// Always a dotted 127.x.y.z address.
    public let host: String
    public let port: Int
    /// Path and query, at least "/".
    public let path: String
    /// The URL with the host as an address: what the signaling client connects to.
    public let url: URL

    public init(_ text: String) throws(OptionError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw OptionError("--url '\(text)' is not a URL (like ws://127.0.0.1:8080/ws)")
        }
        guard scheme == "ws" else {
            throw OptionError("--url must be ws:// (no TLS on loopback), not \(scheme)://")
        }
        guard components.user == nil, components.password == nil else {
            throw OptionError("--url must not carry a user or password")
        }
        let rawHost = (components.host ?? "").lowercased()
        guard !rawHost.isEmpty else { throw OptionError("--url '\(text)' has no host") }
        if rawHost == "localhost" {
            host = "127.0.0.1"
        } else if Self.isLoopbackIPv4(rawHost) {
            host = rawHost
        } else {
            throw OptionError("--url host '\(rawHost)' is not in 127.0.0.0/8 or localhost: the load tester sends to loopback only")
        }
        let port = components.port ?? 80
        guard (1...65535).contains(port) else { throw OptionError("--url port \(port) is out of range") }
        self.port = port
        let query = components.percentEncodedQuery.map { "?" + $0 } ?? ""
        path = (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath) + query
        guard let url = URL(string: "ws://\(host):\(port)\(path)") else {
            throw OptionError("--url '\(text)' has a path that makes no URL")
        }
        self.url = url
    }

    /// Strict dotted decimal: four parts of 0-255, the first 127.
    public static func isLoopbackIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        var octets: [Int] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = Int(part), value <= 255 else { return false }
            octets.append(value)
        }
        return octets[0] == 127
    }

}
