/// The answer of the plain-HTTP redirect port (`server.tls.redirectPort`): 308 to the same
/// path and query over HTTPS. 308 rather than 301 so that a WHIP POST is repeated as a POST.
public enum HTTPSRedirect {
    /// The redirect for `request`: to the host the client asked for (its Host header without
    /// the port), or `fallbackHost` when that header is missing or not a plain host name.
    public static func response(for request: HTTPRequest, httpsPort: Int, fallbackHost: String) -> HTTPResponse {
        let target = location(host: request.headers["host"], path: request.path, query: request.query,
                              httpsPort: httpsPort, fallbackHost: fallbackHost)
        return HTTPResponse(status: 308, contentType: "text/plain", headers: [("location", target), ("cache-control", "no-cache")],
                            body: Array("Use \(target)\n".utf8))
    }

    public static func location(host: String?, path: String, query: String, httpsPort: Int, fallbackHost: String) -> String {
        let name = host.flatMap(hostName(ofHostHeader:)) ?? bracketed(fallbackHost)
        let authority = httpsPort == 443 ? name : "\(name):\(httpsPort)"
        // The path came through lws already decoded and checked; only what would break the
        // Location header or leave the path is refused.
        let safePath = path.hasPrefix("/") && !path.contains(where: isUnsafe) ? path : "/"
        let safeQuery = query.contains(where: isUnsafe) ? "" : query
        return "https://\(authority)\(safePath)\(safeQuery.isEmpty ? "" : "?" + safeQuery)"
    }

    /// "example.com:80" -> "example.com", "[::1]:8080" -> "[::1]"; nil for anything that is
    /// not a host name or an address literal (a Host header is the client's to choose).
    static func hostName(ofHostHeader header: String) -> String? {
        var host = Substring(header)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else { return nil }
            let inside = host[host.index(after: host.startIndex)..<close]
            guard !inside.isEmpty, inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
            return String(host[...close])
        }
        if let colon = host.firstIndex(of: ":") {
            guard host[host.index(after: colon)...].allSatisfy(\.isASCIIDigit) else { return nil }
            host = host[..<colon]
        }
        guard !host.isEmpty, host.count <= 253,
              host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }) else { return nil }
        return String(host)
    }

    private static func bracketed(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }

    private static func isUnsafe(_ character: Character) -> Bool {
        character == "\r" || character == "\n" || character == " " || character == "#" || !character.isASCII
            || character.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
