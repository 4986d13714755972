import SluiceVocabulary
import Testing
@testable import SluiceSDP

/// SDPNegotiatorTests, continued: SSRC and rid simulcast, and what follows them.
extension SDPNegotiatorTests {
    @Test func offerWithoutExtensionsUsesSSRCs() throws {
        let offer = OfferBuilder.offer([
            OfferBuilder.audio(extra: "a=ssrc:11 cname:c"),
            OfferBuilder.video(pts: "96 97", codecs: "a=rtpmap:96 VP8/90000\na=rtpmap:97 rtx/90000\na=fmtp:97 apt=96",
                               extra: "a=ssrc-group:FID 21 22\na=ssrc:21 cname:c\na=ssrc:22 cname:c"),
        ])
        let (n, a) = try answer(offer, .publish)
        #expect(n.session.audio?.extensions == NegotiatedExtensions())
        #expect(n.session.audio?.remoteSSRCs == [RemoteSSRC(ssrc: 11, cname: "c")])
        #expect(n.session.video?.remoteSSRCs == [RemoteSSRC(ssrc: 21, rtxSSRC: 22, cname: "c")])
        #expect(a.media.allSatisfy { $0.extensionMaps.isEmpty })
    }

    @Test func ssrcSimulcast() throws {
        let offer = OfferBuilder.offer([OfferBuilder.video(pts: "96 97", codecs: "a=rtpmap:96 VP8/90000\na=rtpmap:97 rtx/90000\na=fmtp:97 apt=96", extra: """
            a=ssrc-group:SIM 1 2 3
            a=ssrc-group:FID 1 11
            a=ssrc-group:FID 2 12
            a=ssrc-group:FID 3 13
            a=ssrc:1 cname:c
            a=ssrc:2 cname:c
            a=ssrc:3 cname:c
            a=ssrc:11 cname:c
            a=ssrc:12 cname:c
            a=ssrc:13 cname:c
            """)])
        let (n, _) = try answer(offer, .publish)
        let video = try #require(n.session.video)
        #expect(video.simulcastLayers == [SimulcastLayer(ssrc: 1, rtxSSRC: 11), SimulcastLayer(ssrc: 2, rtxSSRC: 12), SimulcastLayer(ssrc: 3, rtxSSRC: 13)])
        #expect(video.remoteSSRCs.map(\.ssrc) == [1, 2, 3])
        #expect(video.remoteSSRCs.map(\.rtxSSRC) == [11, 12, 13])
    }

    @Test func ridSimulcastLimitsAlternativesAndPaused() throws {
        let offer = OfferBuilder.offer([OfferBuilder.video(pts: "96", codecs: "a=rtpmap:96 VP8/90000", extra: """
            a=rid:a send
            a=rid:b send
            a=rid:c send
            a=rid:d send
            a=rid:x recv
            a=simulcast:send x,a;~b;c;d
            """)])
        let (n, a) = try answer(offer, .publish)
        #expect(n.session.video?.simulcastLayers == [SimulcastLayer(rid: "a"), SimulcastLayer(rid: "b", paused: true), SimulcastLayer(rid: "c")])
        #expect(a.media[0].simulcast == SimulcastDescription(recv: [[.init(id: "a")], [.init(id: "b", paused: true)], [.init(id: "c")]]))
        #expect(a.media[0].rids.map(\.id) == ["a", "b", "c"])
    }

    @Test func unsupportedVideoLeavesAudioOnly() throws {
        let offer = OfferBuilder.offer([OfferBuilder.audio(), OfferBuilder.video(pts: "96", codecs: "a=rtpmap:96 H265/90000")])
        let (n, a) = try answer(offer, .publish)
        #expect(n.session.audio != nil && n.session.video == nil)
        #expect(n.session.bundleMids == ["a"] && n.session.rejectedMids == ["v"])
        #expect(a.media[1].port == 0 && a.media[1].mid == "v")
        #expect(a.bundleMids == ["a"])
    }

    @Test func noCommonCodecs() {
        let offer = OfferBuilder.offer([OfferBuilder.audio(codecs: "a=rtpmap:0 PCMU/8000", pts: "0"),
                                        OfferBuilder.video(pts: "96", codecs: "a=rtpmap:96 H265/90000")])
        #expect(throws: SDPError.noCommonCodecs) { try answer(offer, .publish) }
        #expect(throws: SDPError.noCommonCodecs) {
            try answer(OfferBuilder.offer([OfferBuilder.audio(direction: "recvonly")]), .play,
                       publisher: PublisherCodecs(audio: nil, video: NegotiatedCodec(name: "VP8", payloadType: 96, clockRate: 90000)))
        }
    }

    @Test func extraAndDataChannelSections() throws {
        let data = "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\nc=IN IP4 0.0.0.0\na=mid:d\na=sctp-port:5000\na=max-message-size:65536"
        let offer = OfferBuilder.offer([OfferBuilder.audio(mid: "a1"), OfferBuilder.audio(mid: "a2"),
                                        OfferBuilder.video(pts: "96", codecs: "a=rtpmap:96 VP8/90000"), data])
        let (n, a) = try answer(offer, .publish)
        #expect(n.session.audio?.mid == "a1")
        #expect(n.session.rejectedMids == ["a2"])
        #expect(n.session.dataChannel == NegotiatedDataChannel(mid: "d", remoteSCTPPort: 5000, remoteMaxMessageSize: 65536,
                                                               localSCTPPort: 5000, localMaxMessageSize: 262144))
        #expect(n.session.bundleMids == ["a1", "v", "d"])
        #expect(a.media.map(\.port) == [10000, 0, 10000, 10000])
        #expect(a.media.map(\.mid) == ["a1", "a2", "v", "d"])
        #expect(a.media[3].sctpPort == 5000 && a.media[3].formats == ["webrtc-datachannel"])

        let (n2, a2) = try answer(offer, .publish, configuration: .init(acceptsDataChannel: false))
        #expect(n2.session.dataChannel == nil && a2.media[3].port == 0 && n2.session.rejectedMids == ["a2", "d"])
    }

    @Test func dtlsSetup() throws {
        for (offered, answered, role) in [("actpass", DTLSSetup.passive, DTLSRole.server), ("active", .passive, .server),
                                          ("passive", .active, .client)] {
            let offer = OfferBuilder.offer([OfferBuilder.audio()]).replacingOccurrences(of: "a=setup:actpass", with: "a=setup:\(offered)")
            let (n, a) = try answer(offer, .publish)
            #expect(n.session.dtlsRole == role)
            #expect(a.media[0].setup == answered)
        }
        let hold = OfferBuilder.offer([OfferBuilder.audio()]).replacingOccurrences(of: "a=setup:actpass", with: "a=setup:holdconn")
        #expect(throws: SDPError.unsupportedDTLSSetup("holdconn")) { try answer(hold, .publish) }
    }

    @Test func sessionLevelTransportIsUsed() throws {
        let offer = OfferBuilder.offer(session: OfferBuilder.transport, [OfferBuilder.audio(transport: "")])
        let (n, _) = try answer(offer, .publish)
        #expect(n.session.remoteICEUfrag == "cliU")
    }

    @Test func transportErrors() {
        let noICE = OfferBuilder.audio(transport: "a=fingerprint:sha-256 AB:CD\na=setup:actpass")
        #expect(throws: SDPError.missingICECredentials) { try answer(OfferBuilder.offer([noICE]), .publish) }
        let noFingerprint = OfferBuilder.audio(transport: "a=ice-ufrag:u\na=ice-pwd:p")
        #expect(throws: SDPError.missingFingerprint) { try answer(OfferBuilder.offer([noFingerprint]), .publish) }
        let noMux = OfferBuilder.video(pts: "96", codecs: "a=rtpmap:96 VP8/90000", rtcpMux: false)
        #expect(throws: SDPError.missingRTCPMux(mid: "v")) { try answer(OfferBuilder.offer([noMux]), .publish) }
        let noBundle = OfferBuilder.offer(bundle: [], [OfferBuilder.audio(), OfferBuilder.video(pts: "96", codecs: "a=rtpmap:96 VP8/90000")])
        #expect(throws: SDPError.bundleRequired) { try answer(noBundle, .publish) }
        let noMid = OfferBuilder.offer([OfferBuilder.audio().replacingOccurrences(of: "a=mid:a\n", with: "")])
        #expect(throws: SDPError.missingMid(mediaIndex: 0)) { try answer(noMid, .publish) }
        #expect(throws: SDPError.noMediaSections) { try answer("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n", .publish) }
    }

    @Test func directionMustFitRole() throws {
        #expect(throws: SDPError.directionMismatch(role: .publish)) { try answer(Offers.text("chromium-play"), .publish) }
        #expect(throws: SDPError.directionMismatch(role: .play)) { try answer(Offers.text("chromium-publish"), .play) }
        let mixed = OfferBuilder.offer([OfferBuilder.audio(direction: "recvonly"), OfferBuilder.video(direction: "sendrecv", pts: "96", codecs: "a=rtpmap:96 VP8/90000")])
        let (n, _) = try answer(mixed, .publish)
        #expect(n.session.audio == nil && n.session.video?.direction == .recvonly)
    }

    @Test func bitrateCaps() throws {
        let (n, a) = try answer(Offers.text("chromium-publish"), .publish) {
            $0.videoBitrateKbps = 800
            $0.audioBitrateKbps = 64
        }
        #expect(a.media[1].bandwidths == [Bandwidth(type: "AS", value: 800), Bandwidth(type: "TIAS", value: 800_000)])
        #expect(a.media[0].bandwidths == [Bandwidth(type: "AS", value: 64), Bandwidth(type: "TIAS", value: 64_000)])
        #expect(n.session.video?.maxBitrate == 800_000)
        #expect(n.answerSDP.contains("c=IN IP4 127.0.0.1\r\nb=AS:800\r\nb=TIAS:800000\r\n"))
    }

    @Test func serverPreferenceIsConfigurable() throws {
        let (n, _) = try answer(Offers.text("chromium-publish"), .publish, configuration: .init(videoCodecs: ["AV1", "VP8"]))
        #expect(n.session.video?.codec.name == "AV1" && n.session.video?.codec.payloadType == 45)
        #expect(n.session.video?.rtxPayloadType == 46)
        let (vp9, _) = try answer(Offers.text("chromium-publish"), .publish, configuration: .init(videoCodecs: ["VP9"]))
        #expect(vp9.session.video?.codec.payloadType == 98, "profile-id=0, not the profile-id=2 at 100")
    }

    /// ICE-TCP: a passive TCP host candidate per address beside the UDP ones, each below
    /// every UDP candidate (RFC 6544 section 4.2: local preference 2^13 * 4 + other-pref).
    @Test func tcpCandidatesArePassiveAndBelowUDP() throws {
        var parameters = Server.parameters(.play)
        parameters.candidates = Server.candidates + [ServerCandidate(ip: "127.0.0.1", port: 10000, transport: "tcp"),
                                                     ServerCandidate(ip: "127.0.0.2", port: 10001, transport: "tcp")]
        let n = try SDPNegotiator().negotiate(offerSDP: try Offers.text("chromium-play"), parameters: parameters)
        let a = try SessionDescription(parsing: n.answerSDP)
        let m = try #require(a.media.first { $0.port != 0 })
        #expect(m.candidates == [
            "1 1 udp 2130706431 127.0.0.1 10000 typ host",
            "2 1 udp 2130706175 127.0.0.2 10001 typ host",
            "3 1 tcp 1520435199 127.0.0.1 10000 typ host tcptype passive",
            "4 1 tcp 1520434943 127.0.0.2 10001 typ host tcptype passive",
        ])
        #expect(m.port == 10000 && m.connection?.address == "127.0.0.1")
        #expect(CandidatePriority.tcpPassiveHost(index: 0) == 90 << 24 | (4 << 13 + 8191) << 8 | 255)
        #expect(CandidatePriority.tcpPassiveHost(index: 0) < CandidatePriority.udpHost(index: 65535))
    }
}
