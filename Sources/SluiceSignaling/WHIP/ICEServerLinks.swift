import SluiceJSON

/// `connect`'s `iceServers` as the `Link` header fields of a WHIP or WHEP 201 (RFC 9725
/// section 4.6): one field per URL, `<turn:...>; rel="ice-server"`, with the server's
/// `username` and `credential` and `credential-type="password"` when it has them.
enum ICEServerLinks {
    static func headers(_ iceServers: JSONValue?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        for server in iceServers?.arrayValue ?? [] {
            let urls: [String]
            if let one = server["urls"]?.stringValue {
                urls = [one]
            } else {
                urls = (server["urls"]?.arrayValue ?? []).compactMap(\.stringValue)
            }
            var parameters = "; rel=\"ice-server\""
            if let username = server["username"]?.stringValue, let credential = server["credential"]?.stringValue {
                parameters += "; username=\(quoted(username)); credential=\(quoted(credential))"
                    + "; credential-type=\"password\""
            }
            for url in urls where !url.contains(">") {
                headers.append(("link", "<\(url)>" + parameters))
            }
        }
        return headers
    }

    /// An HTTP quoted-string (RFC 9110 section 5.6.4): `"` and `\` are escaped. A username can
    /// carry an identity from a token, so it is not trusted to be plain.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for character in text {
            if character == "\"" || character == "\\" { out.append("\\") }
            // Control characters cannot appear in a header value at all.
            if character.isASCII, let ascii = character.asciiValue, ascii < 0x20 || ascii == 0x7f { continue }
            out.append(character)
        }
        return out + "\""
    }
}
