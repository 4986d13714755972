/// Small hand-written offers for negotiation tests; each piece is one m-section's lines.
enum OfferBuilder {
    static let transport = """
        a=ice-ufrag:cliU
        a=ice-pwd:clientpasswordclientpass
        a=fingerprint:sha-256 11:22:33:44:55:66:77:88:99:00:11:22:33:44:55:66:77:88:99:00:11:22:33:44:55:66:77:88:99:00:11:22
        a=setup:actpass
        """

    static func offer(bundle: [String]? = nil, session: String = "", _ sections: [String]) -> String {
        var text = "v=0\r\no=- 7 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
        let mids = bundle ?? sections.compactMap { s in
            s.split(separator: "\n").first { $0.hasPrefix("a=mid:") }.map { String($0.dropFirst(6)) }
        }
        if !mids.isEmpty { text += "a=group:BUNDLE " + mids.joined(separator: " ") + "\r\n" }
        if !session.isEmpty { text += session.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n" }
        for s in sections { text += s.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n" }
        return text
    }

    static func audio(mid: String = "a", direction: String = "sendonly", port: Int = 9,
                      codecs: String = "a=rtpmap:111 opus/48000/2", pts: String = "111",
                      transport: String = transport, extra: String = "") -> String {
        var s = "m=audio \(port) UDP/TLS/RTP/SAVPF \(pts)\nc=IN IP4 0.0.0.0\n"
        if !transport.isEmpty { s += transport + "\n" }
        s += "a=mid:\(mid)\na=\(direction)\na=rtcp-mux\n\(codecs)"
        if !extra.isEmpty { s += "\n" + extra }
        return s
    }

    static func video(mid: String = "v", direction: String = "sendonly", port: Int = 9, pts: String,
                      codecs: String, transport: String = transport, rtcpMux: Bool = true, extra: String = "") -> String {
        var s = "m=video \(port) UDP/TLS/RTP/SAVPF \(pts)\nc=IN IP4 0.0.0.0\n"
        if !transport.isEmpty { s += transport + "\n" }
        s += "a=mid:\(mid)\na=\(direction)\n"
        if rtcpMux { s += "a=rtcp-mux\n" }
        s += codecs
        if !extra.isEmpty { s += "\n" + extra }
        return s
    }

    static func h264(_ pt: Int, mode: String?, profile: String?) -> String {
        var params: [String] = []
        if let mode { params.append("packetization-mode=\(mode)") }
        if let profile { params.append("profile-level-id=\(profile)") }
        var s = "a=rtpmap:\(pt) H264/90000\na=rtcp-fb:\(pt) nack\na=rtcp-fb:\(pt) nack pli"
        if !params.isEmpty { s += "\na=fmtp:\(pt) " + params.joined(separator: ";") }
        return s
    }
}
