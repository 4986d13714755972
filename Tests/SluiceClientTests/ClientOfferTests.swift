import SluiceClient
import SluiceSDP
import Testing

struct ClientOfferTests {
    static let fingerprint = (0..<32).map { _ in "0F" }.joined(separator: ":")

    @Test func publishOfferIsSendonlyBundledWithSSRCsAndActiveSetup() throws {
        let offer = ClientOffer(role: .publish, iceUfrag: "ufrag123", icePassword: "password-password-123456",
                                fingerprint: Self.fingerprint, audioSSRC: 1111, videoSSRC: 2222,
                                candidate: (ip: "127.0.0.1", port: 40000))
        let parsed = try SessionDescription(parsing: offer.sdp)
        #expect(parsed.bundleMids == ["0", "1"])
        #expect(parsed.media.map(\.kind) == [.audio, .video])
        for m in parsed.media {
            #expect(m.direction == .sendonly)
            #expect(m.setup == .active)
            #expect(m.rtcpMux)
            #expect(m.iceUfrag == "ufrag123" && m.icePwd == "password-password-123456")
            #expect(m.fingerprints == [Fingerprint(algorithm: "sha-256", value: Self.fingerprint)])
            #expect(m.extensionMaps.map(\.id) == [1, 2, 3])
            #expect(m.candidates.first?.contains("127.0.0.1 40000 typ host") == true)
        }
        let audio = parsed.media[0], video = parsed.media[1]
        #expect(audio.codecs.map(\.payloadType) == [111] && audio.codecs.first?.hasName("opus") == true)
        #expect(video.codecs.map(\.payloadType) == [96] && video.codecs.first?.hasName("VP8") == true)
        #expect(audio.ssrcs.map(\.ssrc) == [1111])
        #expect(video.ssrcs.map(\.ssrc) == [2222])
    }

    @Test func simulcastOfferAnnouncesEachLayerAndASIMGroup() throws {
        let offer = ClientOffer(role: .publish, iceUfrag: "u", icePassword: "p", fingerprint: Self.fingerprint,
                                audioSSRC: 1, videoSSRC: 10, simulcastSSRCs: [10, 11, 12])
        let parsed = try SessionDescription(parsing: offer.sdp)
        let video = try #require(parsed.media.first { $0.kind == .video })
        #expect(video.ssrcs.map(\.ssrc) == [10, 11, 12])
        #expect(video.ssrcGroups == [SSRCGroup(semantics: "SIM", ssrcs: [10, 11, 12])])
        #expect(parsed.media.first { $0.kind == .audio }?.ssrcGroups.isEmpty == true)
        // The server's negotiation takes the layers from the group, lowest first.
        let plain = ClientOffer(role: .publish, iceUfrag: "u", icePassword: "p", fingerprint: Self.fingerprint,
                                audioSSRC: 1, videoSSRC: 10)
        #expect(try SessionDescription(parsing: plain.sdp).media.allSatisfy { $0.ssrcGroups.isEmpty })
    }

    @Test func playOfferIsRecvonlyWithoutSSRCs() throws {
        let offer = ClientOffer(role: .play, video: true, iceUfrag: "u", icePassword: "p", fingerprint: Self.fingerprint)
        let parsed = try SessionDescription(parsing: offer.sdp)
        #expect(parsed.media.allSatisfy { $0.direction == .recvonly && $0.ssrcs.isEmpty })
        let audioOnly = ClientOffer(role: .play, video: false, iceUfrag: "u", icePassword: "p", fingerprint: Self.fingerprint)
        #expect(try SessionDescription(parsing: audioOnly.sdp).media.map(\.kind) == [.audio])
    }
}

struct ServerAnswerTests {
    static let answer = """
    v=0\r
    o=- 1 2 IN IP4 127.0.0.1\r
    s=-\r
    t=0 0\r
    a=group:BUNDLE 0 1\r
    a=ice-lite\r
    m=audio 20000 UDP/TLS/RTP/SAVPF 111\r
    c=IN IP4 127.0.0.1\r
    a=ice-ufrag:srvu\r
    a=ice-pwd:server-password-0123456789\r
    a=fingerprint:sha-256 AA:BB\r
    a=setup:passive\r
    a=mid:0\r
    a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid\r
    a=sendonly\r
    a=rtcp-mux\r
    a=rtpmap:111 opus/48000/2\r
    a=ssrc:7 cname:x\r
    a=candidate:1 1 udp 2130706431 127.0.0.1 20000 typ host\r
    a=candidate:2 1 udp 2130706430 0.0.0.0 20000 typ host\r
    a=end-of-candidates\r
    m=video 20000 UDP/TLS/RTP/SAVPF 96 97\r
    c=IN IP4 127.0.0.1\r
    a=ice-ufrag:srvu\r
    a=ice-pwd:server-password-0123456789\r
    a=fingerprint:sha-256 AA:BB\r
    a=setup:passive\r
    a=mid:1\r
    a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid\r
    a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\r
    a=sendonly\r
    a=rtcp-mux\r
    a=rtpmap:96 VP8/90000\r
    a=rtpmap:97 rtx/90000\r
    a=fmtp:97 apt=96\r
    a=ssrc-group:FID 8 9\r
    a=ssrc:8 cname:x\r
    a=ssrc:9 cname:x\r
    a=candidate:1 1 udp 2130706431 127.0.0.1 20000 typ host\r
    a=end-of-candidates\r

    """

    @Test func readsCredentialsCandidatesAndTracks() throws {
        let answer = try ServerAnswer(parsing: Self.answer)
        #expect(answer.iceUfrag == "srvu" && answer.icePassword == "server-password-0123456789")
        #expect(answer.fingerprintAlgorithm == "sha-256" && answer.fingerprint == "AA:BB")
        #expect(answer.setup == .passive)
        #expect(answer.candidates == [.init(ip: "127.0.0.1", port: 20000), .init(ip: "0.0.0.0", port: 20000)])
        #expect(answer.audio?.payloadType == 111 && answer.audio?.ssrcs == [7])
        #expect(answer.video?.payloadType == 96 && answer.video?.ssrcs == [8])
        #expect(answer.video?.extensionIDs["http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"] == 2)
    }

    @Test func missingPartsAreErrors() {
        #expect(throws: ServerAnswer.ParseError.self) { try ServerAnswer(parsing: "garbage") }
        let noFingerprint = Self.answer.replacingOccurrences(of: "a=fingerprint:sha-256 AA:BB\r\n", with: "")
        #expect(throws: ServerAnswer.ParseError.missing("fingerprint")) { try ServerAnswer(parsing: noFingerprint) }
        let rejected = Self.answer.replacingOccurrences(of: "m=audio 20000", with: "m=audio 0")
            .replacingOccurrences(of: "m=video 20000", with: "m=video 0")
        #expect(throws: ServerAnswer.ParseError.missing("accepted m-line")) { try ServerAnswer(parsing: rejected) }
    }
}
