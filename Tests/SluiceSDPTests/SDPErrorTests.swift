import Testing
@testable import SluiceSDP

@Suite struct SDPErrorTests {
    static let header = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"

    /// (body after the 4-line header, expected 1-based line, expected text, reason fragment)
    static let cases: [(String, Int, String, String)] = [
        ("m=video x UDP/TLS/RTP/SAVPF 96", 5, "m=video x UDP/TLS/RTP/SAVPF 96", "port is not a number"),
        ("m=video 70000 UDP/TLS/RTP/SAVPF 96", 5, "m=video 70000 UDP/TLS/RTP/SAVPF 96", "port is out of range"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96 abc", 5, "m=video 9 UDP/TLS/RTP/SAVPF 96 abc", "payload type"),
        ("m=video 9", 5, "m=video 9", "m= needs"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\na=rtpmap:96 VP8", 6, "a=rtpmap:96 VP8", "name/clock rate"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\na=rtpmap:96 VP8/fast", 6, "a=rtpmap:96 VP8/fast", "clock rate"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\na=rtpmap:200 VP8/90000", 6, "a=rtpmap:200 VP8/90000", "payload type"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\na=mid:0\na=extmap:0 urn:x", 7, "a=extmap:0 urn:x", "extmap id"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\na=ssrc:-1 cname:x", 6, "a=ssrc:-1 cname:x", "ssrc"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\na=ssrc-group:FID 1 x", 6, "a=ssrc-group:FID 1 x", "ssrc"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\na=rid:q sideways", 6, "a=rid:q sideways", "send or recv"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\na=simulcast:send", 6, "a=simulcast:send", "a=simulcast"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\na=simulcast:up a;b", 6, "a=simulcast:up a;b", "send or recv"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\na=mid:", 6, "a=mid:", "needs a value"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\na=setup:sideways", 6, "a=setup:sideways", "a=setup"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\na=fingerprint:sha-256", 6, "a=fingerprint:sha-256", "fingerprint"),
        ("c=IN IP4", 5, "c=IN IP4", "c= needs"),
        ("b=AS:lots", 5, "b=AS:lots", "bandwidth"),
        ("garbage", 5, "garbage", "expected <type>=<value>"),
        ("a=x\u{1}y", 5, "a=x\u{1}y", "control character"),
    ]

    @Test func malformedLinesCarryLineNumberAndText() {
        for (body, line, text, reason) in Self.cases {
            do {
                _ = try SessionDescription(parsing: Self.header + body + "\r\n")
                Issue.record("parsed: \(body)")
            } catch let SDPError.malformed(gotLine, gotText, gotReason) {
                #expect(gotLine == line, "\(body)")
                #expect(gotText == text, "\(body)")
                #expect(gotReason.contains(reason), "\(body): \(gotReason)")
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func lineNumbersCountBlankLinesAndBothEndings() throws {
        let text = "v=0\n\r\no=- 1 1 IN IP4 0.0.0.0\ns=-\r\n\nm=audio nine RTP/SAVPF 0\n"
        #expect(throws: SDPError.malformed(line: 6, text: "m=audio nine RTP/SAVPF 0", reason: "port is not a number")) {
            try SessionDescription(parsing: text)
        }
    }

    @Test func mustStartWithVersion() {
        #expect(throws: SDPError.malformed(line: 1, text: "", reason: "empty SDP")) { try SessionDescription(parsing: "") }
        #expect(throws: SDPError.malformed(line: 1, text: "o=- 1 1 IN IP4 0.0.0.0", reason: "SDP must start with v=0")) {
            try SessionDescription(parsing: "o=- 1 1 IN IP4 0.0.0.0\r\nv=0\r\n")
        }
        #expect(throws: SDPError.malformed(line: 1, text: "v=1", reason: "unsupported SDP version")) {
            try SessionDescription(parsing: "v=1\r\n")
        }
    }

    @Test func descriptionReadsWellInAJSONRPCMessage() {
        let error = SDPError.malformed(line: 7, text: "m=video x UDP/TLS/RTP/SAVPF 96", reason: "port is not a number")
        #expect(error.description == "Malformed SDP at line 7: port is not a number: \"m=video x UDP/TLS/RTP/SAVPF 96\"")
        #expect(SDPError.noCommonCodecs.description == "No common codecs")
        #expect(SDPError.missingRTCPMux(mid: "1").description.contains("rtcp-mux"))
        let long = SDPError.malformed(line: 1, text: String(repeating: "a", count: 5000), reason: "r").description
        #expect(long.count < 200)
    }
}
