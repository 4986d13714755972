/// The parts of an `http://` or `https://host[:port][/path]` URL a hook needs.
struct HookURL: Equatable {
    /// `https://`: the request goes over TLS (`HookTLSConnection`).
    var isSecure: Bool = false
    var host: String
    var port: Int
    /// The request target, "/" at least, query included.
    var path: String
    /// What the Host header says.
    var authority: String

    init(isSecure: Bool = false, host: String, port: Int, path: String, authority: String) {
        (self.isSecure, self.host, self.port, self.path, self.authority) = (isSecure, host, port, path, authority)
    }

    init?(_ url: String) {
        let lowered = url.lowercased()
        if lowered.hasPrefix("https://") {
            isSecure = true
        } else if !lowered.hasPrefix("http://") {
            return nil
        }
        let rest = url.dropFirst(isSecure ? "https://".count : "http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = String(rest[..<slash])
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        path = slash < rest.endIndex ? String(rest[slash...]) : "/"
        self.authority = authority
        var hostPart = Substring(authority)
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { return nil }
        host = String(hostPart)
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else { return nil }
            port = value
        } else {
            port = isSecure ? 443 : 80
        }
        guard !path.contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" }) else { return nil }
    }

    /// The status code of "HTTP/1.x NNN ...", or nil.
    static func status(ofResponseStart bytes: [UInt8]) -> Int? {
        let line = String(decoding: bytes.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3,
              let code = Int(parts[1]), (100...599).contains(code) else { return nil }
        return code
    }
}
