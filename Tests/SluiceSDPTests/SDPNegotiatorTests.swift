import SluiceVocabulary
import Testing
@testable import SluiceSDP

/// Negotiates and parses the answer back with Sluice's own parser.
func answer(_ offer: String, _ role: StreamRole, publisher: PublisherCodecs? = nil,
            configuration: SDPNegotiator.Configuration = .init(),
            tweak: (inout AnswerParameters) -> Void = { _ in }) throws -> (SDPNegotiation, SessionDescription) {
    var parameters = Server.parameters(role, publisher: publisher)
    tweak(&parameters)
    let negotiation = try SDPNegotiator(configuration: configuration).negotiate(offerSDP: offer, parameters: parameters)
    let parsed = try SessionDescription(parsing: negotiation.answerSDP)
    #expect(parsed == negotiation.answer)
    return (negotiation, parsed)
}

@Suite struct SDPNegotiatorTests {
    @Test func chromiumPublish() throws {
        let (n, a) = try answer(Offers.text("chromium-publish"), .publish)
        let s = n.session
        #expect(s.remoteICEUfrag == "SqHg" && s.remoteICEPwd == "9LHzoiCUD/GNldOr5/9BQ67+")
        #expect(s.remoteFingerprint.algorithm == "sha-256")
        #expect(s.dtlsRole == .server)
        #expect(s.bundleMids == ["0", "1"])
        let audio = try #require(s.audio)
        #expect(audio.codec == NegotiatedCodec(name: "opus", payloadType: 111, clockRate: 48000, channels: 2, fmtp: "minptime=10;useinbandfec=1"))
        #expect(audio.feedback == RTCPFeedbackSet(transportCC: true))
        #expect(audio.extensions == NegotiatedExtensions(mid: 4, absSendTime: 2, transportCC: 3, audioLevel: 1))
        #expect(audio.remoteSSRCs == [RemoteSSRC(ssrc: 1789911492, cname: "3zRrW3zyO05s5wc1")])
        let video = try #require(s.video)
        #expect(video.codec.name == "VP8" && video.codec.payloadType == 96)
        #expect(video.rtxPayloadType == 97)
        #expect(video.feedback == RTCPFeedbackSet(nack: true, pli: true, fir: true, remb: true, transportCC: true))
        #expect(video.extensions == NegotiatedExtensions(mid: 4, rid: 10, repairedRid: 11, absSendTime: 2, transportCC: 3))
        #expect(video.remoteSSRCs == [RemoteSSRC(ssrc: 1663118778, rtxSSRC: 2234583971, cname: "3zRrW3zyO05s5wc1")])
        #expect(video.simulcastLayers.isEmpty)
        #expect(video.direction == .recvonly)

        #expect(a.iceLite)
        #expect(a.bundleMids == ["0", "1"])
        #expect(a.origin.sessionID == "42")
        let av = a.media[1]
        #expect(av.port == 10000 && av.connection?.address == "127.0.0.1")
        #expect(av.payloadTypes == [96, 97])
        #expect(av.direction == .recvonly && av.rtcpMux && av.rtcpRsize)
        #expect(av.setup == .passive)
        #expect(av.iceUfrag == "srvU" && av.icePwd == "serverpasswordserverpass")
        #expect(av.fingerprints == [Fingerprint(algorithm: "sha-256", value: Server.fingerprint)])
        #expect(av.candidates == ["1 1 udp 2130706431 127.0.0.1 10000 typ host", "2 1 udp 2130706175 127.0.0.2 10001 typ host"])
        #expect(av.endOfCandidates)
        #expect(av.extensionMaps.map(\.id) == [2, 3, 4, 10, 11])
        #expect(av.codecs[1] == CodecDescription(payloadType: 97, name: "rtx", clockRate: 90000, parameters: [.init(name: "apt", value: "96")]))
        #expect(av.ssrcs.isEmpty && av.rids.isEmpty)
        #expect(n.answerSDP.contains("\r\na=rtcp:9 IN IP4 0.0.0.0\r\n"))
        #expect(!n.answerSDP.contains("\n\n") && !n.answerSDP.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
    }

    /// Players give transport-wide feedback (and REMB where they only have that); a
    /// configuration can leave transport-cc out of play answers.
    @Test func playAnswerKeepsTransportCCUnlessConfiguredOut() throws {
        let (n, _) = try answer(Offers.text("chromium-play"), .play)
        let video = try #require(n.session.video)
        #expect(video.feedback.transportCC && video.feedback.remb)
        #expect(video.extensions.transportCC != nil)
        #expect(n.answerSDP.contains("transport-cc") && n.answerSDP.contains("transport-wide-cc"))
        var drop = SDPNegotiator.Configuration()
        drop.transportCCForPlay = false
        let (dropped, a) = try answer(Offers.text("chromium-play"), .play, configuration: drop)
        #expect(dropped.session.video?.feedback.transportCC == false)
        #expect(dropped.session.video?.extensions.transportCC == nil)
        #expect(!dropped.answerSDP.contains("transport-cc") && !dropped.answerSDP.contains("transport-wide-cc"))
        #expect(a.media.allSatisfy { m in m.codecs.allSatisfy { !$0.feedback.contains { $0.type == "transport-cc" } } })
    }

    @Test func chromiumSimulcastPublish() throws {
        let (n, a) = try answer(Offers.text("chromium-publish-simulcast"), .publish)
        let video = try #require(n.session.video)
        #expect(video.simulcastLayers.map(\.rid) == ["q", "h", "f"])
        #expect(video.remoteSSRCs.isEmpty)
        #expect(a.media[1].rids == [RIDDescription(id: "q", direction: .recv), RIDDescription(id: "h", direction: .recv),
                                    RIDDescription(id: "f", direction: .recv)])
        #expect(a.media[1].simulcast == SimulcastDescription(recv: [[.init(id: "q")], [.init(id: "h")], [.init(id: "f")]]))
    }

    @Test func aiortcPublish() throws {
        let (n, a) = try answer(Offers.text("aiortc-publish"), .publish)
        #expect(n.session.remoteFingerprint.value.hasPrefix("48:AE:87"))
        #expect(n.session.audio?.codec.payloadType == 96)
        #expect(n.session.audio?.extensions == NegotiatedExtensions(mid: 1, audioLevel: 2))
        #expect(n.session.video?.codec.name == "VP8")
        #expect(n.session.video?.rtxPayloadType == 98)
        #expect(n.session.video?.feedback == RTCPFeedbackSet(nack: true, pli: true, remb: true))
        #expect(!a.media[1].rtcpRsize)
        #expect(a.media[1].codecs[0].feedback.map(\.type) == ["nack", "nack", "goog-remb"])
    }

    @Test(arguments: Offers.play)
    func play(name: String) throws {
        let (n, a) = try answer(Offers.text(name), .play)
        let audio = try #require(n.session.audio)
        let video = try #require(n.session.video)
        #expect(audio.direction == .sendonly && video.direction == .sendonly)
        #expect(audio.localSSRCs == LocalSSRCs(ssrc: 1111))
        #expect(video.localSSRCs == LocalSSRCs(ssrc: 2222, rtxSSRC: 3333))
        #expect(a.msidSemantic == MsidSemantic(semantics: "WMS", identifiers: ["stream1"]))
        let av = a.media[1]
        #expect(av.direction == .sendonly)
        #expect(av.msids == [MediaStreamID(streamID: "stream1", trackID: "v0")])
        #expect(av.ssrcGroups == [SSRCGroup(semantics: "FID", ssrcs: [2222, 3333])])
        #expect(av.ssrcs.map(\.ssrc) == [2222, 3333])
        #expect(av.ssrcs.allSatisfy { $0.cname == "sluice" })
        #expect(a.media[0].ssrcs == [SSRCDescription(ssrc: 1111, attributes: [SDPAttribute(name: "cname", value: "sluice")])])
        #expect(a.media[0].ssrcGroups.isEmpty)
    }

    /// What Chromium needs to demux and decapsulate the server's retransmissions: the RTX
    /// payload type mapped to the payload type actually sent, and the RTX SSRC tied to the
    /// media SSRC by FID, both SSRCs with the same cname (written in that order: aiortc takes
    /// the second a=ssrc of the m-line as the RTX one).
    @Test(arguments: Offers.play)
    func playAnswerAnnouncesTheRTXStream(name: String) throws {
        let (n, _) = try answer(Offers.text(name), .play)
        let video = try #require(n.session.video)
        let rtx = try #require(video.rtxPayloadType)
        let lines = n.answerSDP.components(separatedBy: "\r\n")
        let section = Array(lines.drop { !$0.hasPrefix("m=video") })
        #expect(section.first == "m=video 10000 UDP/TLS/RTP/SAVPF \(video.codec.payloadType) \(rtx)")
        #expect(section.contains("a=rtpmap:\(rtx) rtx/90000"))
        #expect(section.contains("a=fmtp:\(rtx) apt=\(video.codec.payloadType)"))
        #expect(section.filter { $0.hasPrefix("a=ssrc") } ==
                ["a=ssrc-group:FID 2222 3333", "a=ssrc:2222 cname:sluice", "a=ssrc:3333 cname:sluice"])
    }

    /// A player that offers no RTX gets no RTX SSRC: the server then resends on the media SSRC.
    @Test func playWithoutRTXHasNoRepairStream() throws {
        let offer = OfferBuilder.offer([
            OfferBuilder.video(direction: "recvonly", pts: "96", codecs: "a=rtpmap:96 VP8/90000\na=rtcp-fb:96 nack"),
        ])
        let (n, a) = try answer(offer, .play)
        let video = try #require(n.session.video)
        #expect(video.rtxPayloadType == nil)
        #expect(video.localSSRCs == LocalSSRCs(ssrc: 2222))
        #expect(a.media[0].ssrcGroups.isEmpty)
        #expect(a.media[0].ssrcs.map(\.ssrc) == [2222])
        #expect(a.media[0].payloadTypes == [96])
    }

    @Test func playFollowsPublisherCodec() throws {
        let publisher = try answer(Offers.text("chromium-publish"), .publish, configuration: .init(videoCodecs: ["H264"])).0.session
        #expect(publisher.video?.codec.payloadType == 108)
        #expect(publisher.video?.codec.fmtp == "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")

        // aiortc numbers H264 42e01f packetization-mode=1 as 101.
        let (n, a) = try answer(Offers.text("aiortc-play"), .play, publisher: PublisherCodecs(publisher))
        #expect(n.session.video?.codec.payloadType == 101)
        #expect(n.session.video?.rtxPayloadType == 102)
        #expect(n.session.audio?.codec.payloadType == 96)
        #expect(a.media[1].payloadTypes == [101, 102])

        let vp9 = NegotiatedCodec(name: "VP9", payloadType: 98, clockRate: 90000, fmtp: "profile-id=0")
        let (n2, _) = try answer(Offers.text("aiortc-play"), .play, publisher: PublisherCodecs(audio: publisher.audio?.codec, video: vp9))
        #expect(n2.session.video == nil, "aiortc offers no VP9: video is rejected")
        #expect(n2.session.rejectedMids == ["1"])
        #expect(n2.session.audio != nil)
    }

    @Test func playerLevelCappedToPublisher() throws {
        let offer = OfferBuilder.offer([OfferBuilder.video(direction: "recvonly", pts: "100",
                                                           codecs: OfferBuilder.h264(100, mode: "1", profile: "42e034"))])
        let publisher = NegotiatedCodec(name: "H264", payloadType: 102, clockRate: 90000, fmtp: "packetization-mode=1;profile-level-id=42e01f")
        let (n, _) = try answer(offer, .play, publisher: PublisherCodecs(audio: nil, video: publisher))
        #expect(n.session.video?.codec.fmtp == "packetization-mode=1;profile-level-id=42e01f")
    }

    /// (offered H264 payloads as (mode, profile-level-id), expected chosen index or nil)
    static let h264Table: [([(String?, String?)], Int?)] = [
        ([("1", "42e01f")], 0),
        ([("0", "42e01f"), ("1", "42e01f")], 1),
        ([("1", "42001f"), ("1", "42e01f")], 1),
        ([("0", "42001f"), ("1", "42001f")], 1),
        ([(nil, "42e01f")], 0),
        ([("1", nil)], 0),
        ([("2", "42e01f")], nil),
        ([("1", "4d001f")], nil),
        ([("1", "640c1f")], nil),
        ([("1", "4d001f"), ("0", "42e01f")], 1),
        ([("1", "nothex")], nil),
    ]

    @Test func h264PacketizationModeAndProfileTable() throws {
        for (offered, expected) in Self.h264Table {
            let pts = offered.indices.map { 100 + $0 }
            let codecs = zip(pts, offered).map { OfferBuilder.h264($0, mode: $1.0, profile: $1.1) }.joined(separator: "\n")
            let offer = OfferBuilder.offer([OfferBuilder.audio(), OfferBuilder.video(pts: pts.map(String.init).joined(separator: " "), codecs: codecs)])
            let (n, a) = try answer(offer, .publish, configuration: .init(videoCodecs: ["H264"]))
            #expect(n.session.video?.codec.payloadType == expected.map { pts[$0] }, "\(offered)")
            #expect((a.media[1].port == 0) == (expected == nil), "\(offered)")
        }
    }

    @Test func playMatchesPublisherH264ModeAndProfile() throws {
        let codecs = [OfferBuilder.h264(100, mode: "0", profile: "42e01f"), OfferBuilder.h264(101, mode: "1", profile: "42001f"),
                      OfferBuilder.h264(102, mode: "1", profile: "42e01f"), OfferBuilder.h264(103, mode: "1", profile: "4d001f")]
        let offer = OfferBuilder.offer([OfferBuilder.video(direction: "recvonly", pts: "100 101 102 103", codecs: codecs.joined(separator: "\n"))])
        for (fmtp, expected) in [("packetization-mode=1;profile-level-id=42e01f", 102), ("packetization-mode=0;profile-level-id=42e01f", 100),
                                 ("packetization-mode=1;profile-level-id=42001f", 101), ("packetization-mode=1;profile-level-id=4d001f", 103),
                                 ("packetization-mode=1;profile-level-id=640c1f", nil), ("profile-level-id=42001f", nil)] as [(String, Int?)] {
            let publisher = NegotiatedCodec(name: "h264", payloadType: 125, clockRate: 90000, fmtp: fmtp)
            do {
                let (n, _) = try answer(offer, .play, publisher: PublisherCodecs(audio: nil, video: publisher))
                #expect(n.session.video?.codec.payloadType == expected, "\(fmtp)")
            } catch SDPError.noCommonCodecs {
                #expect(expected == nil, "\(fmtp)")
            }
        }
    }

    @Test func codecNamesAreCaseInsensitive() throws {
        let offer = OfferBuilder.offer([
            OfferBuilder.audio(codecs: "a=rtpmap:109 OPUS/48000/2", pts: "0 109"),
            OfferBuilder.video(pts: "120 121", codecs: "a=rtpmap:120 vp8/90000\na=rtcp-fb:120 NACK\na=rtpmap:121 RTX/90000\na=fmtp:121 APT=120"),
        ])
        let (n, a) = try answer(offer, .publish)
        #expect(n.session.audio?.codec.payloadType == 109)
        #expect(n.session.audio?.codec.name == "OPUS")
        #expect(n.session.video?.codec.payloadType == 120)
        #expect(n.session.video?.rtxPayloadType == 121)
        #expect(n.session.video?.feedback == RTCPFeedbackSet(nack: true))
        #expect(a.media[0].payloadTypes == [109])
    }

    @Test func bundleOnlyWithPortZeroIsAccepted() throws {
        let offer = OfferBuilder.offer([
            OfferBuilder.audio(mid: "audio0"),
            OfferBuilder.video(mid: "video0", port: 0, pts: "96", codecs: "a=rtpmap:96 VP8/90000", transport: "", extra: "a=bundle-only"),
        ])
        let (n, a) = try answer(offer, .publish)
        #expect(n.session.bundleMids == ["audio0", "video0"])
        #expect(n.session.video?.mid == "video0")
        #expect(a.media[1].port == 10000)
        #expect(a.bundleMids == ["audio0", "video0"])
    }
}
