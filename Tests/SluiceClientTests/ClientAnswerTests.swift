import SluiceClient
import SluiceSDP
import Testing

/// Answers to offers made by a server (written in the shape Janus's VideoRoom offers to a
/// subscriber: BUNDLE, sendonly audio and video with RTX, ICE-lite, actpass).
struct ClientAnswerTests {
    static let offer = """
    v=0\r
    o=- 1700000000 1 IN IP4 127.0.0.2\r
    s=VideoRoom 1234\r
    t=0 0\r
    a=group:BUNDLE a0 v1 d2\r
    a=ice-lite\r
    a=msid-semantic: WMS *\r
    m=audio 9 UDP/TLS/RTP/SAVPF 111\r
    c=IN IP4 127.0.0.2\r
    a=sendonly\r
    a=mid:a0\r
    a=rtcp-mux\r
    a=ice-ufrag:jnsu\r
    a=ice-pwd:janus-password-0123456789\r
    a=ice-options:trickle\r
    a=fingerprint:sha-256 AA:BB:CC\r
    a=setup:actpass\r
    a=rtpmap:111 opus/48000/2\r
    a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid\r
    a=extmap:4 urn:ietf:params:rtp-hdrext:ssrc-audio-level\r
    a=ssrc:1001 cname:janus\r
    a=candidate:1 1 udp 2015363327 127.0.0.2 40000 typ host\r
    a=end-of-candidates\r
    m=video 9 UDP/TLS/RTP/SAVPF 100 101\r
    c=IN IP4 127.0.0.2\r
    a=sendonly\r
    a=mid:v1\r
    a=rtcp-mux\r
    a=ice-ufrag:jnsu\r
    a=ice-pwd:janus-password-0123456789\r
    a=fingerprint:sha-256 AA:BB:CC\r
    a=setup:actpass\r
    a=rtpmap:100 VP8/90000\r
    a=rtcp-fb:100 ccm fir\r
    a=rtcp-fb:100 nack\r
    a=rtcp-fb:100 nack pli\r
    a=rtcp-fb:100 goog-remb\r
    a=rtpmap:101 rtx/90000\r
    a=fmtp:101 apt=100\r
    a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid\r
    a=ssrc-group:FID 2002 2003\r
    a=ssrc:2002 cname:janus\r
    a=ssrc:2003 cname:janus\r
    m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r
    c=IN IP4 127.0.0.2\r
    a=mid:d2\r
    a=sctp-port:5000\r

    """

    @Test func acceptsOpusAndVP8InTheOffersOrderAndRejectsTheRest() throws {
        let offer = try SessionDescription(parsing: Self.offer)
        let answer = try ClientAnswer(offer: offer, iceUfrag: "cliu", icePassword: "client-password-0123456789",
                                      fingerprint: "0F:0F", candidate: (ip: "127.0.0.1", port: 45000))
        #expect(answer.audioPayloadType == 111 && answer.videoPayloadType == 100)
        let parsed = try SessionDescription(parsing: answer.sdp)
        #expect(parsed.media.map(\.mid) == ["a0", "v1", "d2"])
        #expect(parsed.bundleMids == ["a0", "v1"])
        let audio = parsed.media[0], video = parsed.media[1], data = parsed.media[2]
        for m in [audio, video] {
            #expect(m.direction == .recvonly && m.setup == .active && m.rtcpMux)
            #expect(m.iceUfrag == "cliu" && m.fingerprints.first?.value == "0F:0F")
            #expect(m.candidates.first?.contains("127.0.0.1 45000 typ host") == true)
            #expect(m.extensionMaps.map(\.uri) == ["urn:ietf:params:rtp-hdrext:sdes:mid"])
        }
        #expect(video.codecs.map(\.payloadType) == [100])
        #expect(Set(video.codecs[0].feedback.map { "\($0.type) \($0.parameter ?? "")" }) == ["ccm fir", "nack pli"])
        #expect(data.port == 0)
        #expect(try ServerAnswer(parsing: Self.offer).candidates == [ServerAnswer.Candidate(ip: "127.0.0.2", port: 40000)])
        #expect(try ServerAnswer(parsing: Self.offer).tcpCandidates.isEmpty)
    }

    /// ICE-TCP: passive TCP candidates are kept apart from the UDP ones; an active one (which
    /// accepts no connection) is ignored.
    @Test func passiveTCPCandidatesAreReadApart() throws {
        let sdp = Self.offer.replacingOccurrences(of: "a=end-of-candidates\r\n", with: """
            a=candidate:2 1 tcp 1520435199 127.0.0.2 40000 typ host tcptype passive\r
            a=candidate:3 1 tcp 1520435199 127.0.0.3 9 typ host tcptype active\r
            a=end-of-candidates\r

            """)
        let answer = try ServerAnswer(parsing: sdp)
        #expect(answer.candidates == [ServerAnswer.Candidate(ip: "127.0.0.2", port: 40000)])
        #expect(answer.tcpCandidates == [ServerAnswer.Candidate(ip: "127.0.0.2", port: 40000)])
    }

    @Test func anOfferWithNothingToTakeIsAnError() throws {
        let h264Only = Self.offer.replacingOccurrences(of: "VP8/90000", with: "H264/90000")
            .replacingOccurrences(of: "opus/48000/2", with: "PCMU/8000")
        #expect(throws: ClientAnswer.AnswerError.nothingToAccept) {
            try ClientAnswer(offer: try SessionDescription(parsing: h264Only), iceUfrag: "u", icePassword: "p",
                             fingerprint: "0F", candidate: nil)
        }
    }
}
