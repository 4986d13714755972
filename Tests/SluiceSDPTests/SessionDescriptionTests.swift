import Testing
@testable import SluiceSDP

@Suite struct SessionDescriptionTests {
    @Test func chromiumPublishOffer() throws {
        let sdp = try Offers.parsed("chromium-publish")
        #expect(sdp.bundleMids == ["0", "1"])
        #expect(sdp.extmapAllowMixed)
        #expect(sdp.msidSemantic?.semantics == "WMS")
        #expect(sdp.msidSemantic?.identifiers == ["4be57031-f079-473f-ab61-0e65509512d5"])
        #expect(sdp.origin.sessionVersion == "2")
        try #require(sdp.media.count == 2)

        let audio = sdp.media[0]
        #expect(audio.kind == .audio)
        #expect(audio.port == 36478)
        #expect(audio.proto == "UDP/TLS/RTP/SAVPF")
        #expect(audio.payloadTypes == [111, 63, 9, 0, 8, 13, 110, 126])
        #expect(audio.mid == "0")
        #expect(audio.direction == .sendonly)
        #expect(audio.rtcpMux && audio.rtcpRsize)
        #expect(audio.iceUfrag == "SqHg")
        #expect(audio.iceOptions == ["trickle"])
        #expect(audio.fingerprints.first?.algorithm == "sha-256")
        #expect(audio.setup == .actpass)
        #expect(audio.candidates.count == 2)
        #expect(audio.candidates.first?.hasSuffix("network-cost 50") == true)
        #expect(audio.candidates.allSatisfy { $0.contains("127.0.0.1") })
        let opus = try #require(audio.codec(payloadType: 111))
        #expect(opus.name == "opus" && opus.clockRate == 48000 && opus.channels == 2)
        #expect(opus.parameters == [FormatParameter(name: "minptime", value: "10"), FormatParameter(name: "useinbandfec", value: "1")])
        #expect(opus.feedback == [RTCPFeedback(type: "transport-cc")])
        #expect(audio.codec(payloadType: 0)?.name == "PCMU")
        #expect(audio.extensionMaps.first == ExtensionMap(id: 1, uri: "urn:ietf:params:rtp-hdrext:ssrc-audio-level"))
        #expect(audio.ssrcs == [SSRCDescription(ssrc: 1789911492, attributes: [
            SDPAttribute(name: "cname", value: "3zRrW3zyO05s5wc1"),
            SDPAttribute(name: "msid", value: "4be57031-f079-473f-ab61-0e65509512d5 da2159eb-b6fe-4ed6-b4aa-68b292bda865"),
        ])])
        #expect(audio.msids == [MediaStreamID(streamID: "4be57031-f079-473f-ab61-0e65509512d5",
                                              trackID: "da2159eb-b6fe-4ed6-b4aa-68b292bda865")])
        #expect(audio.otherAttributes.contains(SDPAttribute(name: "rtcp-xr", value: "rcvr-rtt=all")))

        let video = sdp.media[1]
        #expect(video.kind == .video)
        let h264 = try #require(video.codec(payloadType: 108))
        #expect(h264.hasName("h264"))
        #expect(h264.parameters.value(of: "profile-level-id") == "42e01f")
        #expect(h264.parameters.value(of: "PACKETIZATION-MODE") == "1")
        #expect(h264.feedback.contains(RTCPFeedback(type: "nack", parameter: "pli")))
        #expect(video.codec(payloadType: 109)?.associatedPayloadType == 108)
        #expect(video.ssrcGroups == [SSRCGroup(semantics: "FID", ssrcs: [1663118778, 2234583971])])
        #expect(video.rtxSSRC(for: 1663118778) == 2234583971)
        #expect(video.extensionMaps.contains(ExtensionMap(id: 10, uri: "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id")))
    }

    @Test func aiortcOfferHasPerMediaTransportAndSeveralFingerprints() throws {
        let sdp = try Offers.parsed("aiortc-publish")
        #expect(sdp.msidSemantic == MsidSemantic(semantics: "WMS", identifiers: ["*"]))
        let video = sdp.media[1]
        #expect(video.fingerprints.map(\.algorithm) == ["sha-256", "sha-384", "sha-512"])
        #expect(video.iceUfrag == "Qhb1" && video.icePwd == "23pINaYpYDFwJqUyy2DyiK")
        #expect(video.endOfCandidates)
        #expect(!video.rtcpRsize)
        #expect(video.rtcp == "9 IN IP4 0.0.0.0")
        #expect(video.connection == ConnectionData(address: "127.0.0.1"))
        #expect(video.codecs.map(\.name) == ["VP8", "rtx", "H264", "rtx", "H264", "rtx"])
        // rtcp-fb before fmtp in aiortc's order still lands on the codec.
        #expect(video.codec(payloadType: 99)?.parameters.value(of: "profile-level-id") == "42001f")
    }

    @Test func simulcastOfferRids() throws {
        let video = try Offers.parsed("chromium-publish-simulcast").media[1]
        #expect(video.rids.map(\.id) == ["q", "h", "f"])
        #expect(video.rids.allSatisfy { $0.direction == .send })
        #expect(video.simulcast == SimulcastDescription(send: [[.init(id: "q")], [.init(id: "h")], [.init(id: "f")]]))
        #expect(video.ssrcs.isEmpty)
    }

    @Test(arguments: Offers.all)
    func roundTrip(name: String) throws {
        let sdp = try Offers.parsed(name)
        let again = try SessionDescription(parsing: sdp.serialized())
        #expect(again == sdp)
        #expect(sdp.serialized().hasSuffix("\r\n"))
    }

    @Test(arguments: Offers.all)
    func bareLineFeedsParseTheSame(name: String) throws {
        let text = try Offers.text(name)
        #expect(try SessionDescription(parsing: text.replacingOccurrences(of: "\r\n", with: "\n"))
            == SessionDescription(parsing: text))
    }

    @Test func simulcastAlternativesPausedAndRestrictions() throws {
        let sdp = try SessionDescription(parsing: """
            v=0
            o=- 1 1 IN IP4 0.0.0.0
            s=-
            t=0 0
            m=video 9 UDP/TLS/RTP/SAVPF 96
            a=rid:1 send pt=96;max-width=1280
            a=rid:2 send
            a=rid:3 send
            a=simulcast: send 1,~2;3 recv 4
            """)
        let video = sdp.media[0]
        #expect(video.rids[0].restrictions == [FormatParameter(name: "pt", value: "96"), FormatParameter(name: "max-width", value: "1280")])
        #expect(video.simulcast?.send == [[.init(id: "1"), .init(id: "2", paused: true)], [.init(id: "3")]])
        #expect(video.simulcast?.recv == [[.init(id: "4")]])
        #expect(try SessionDescription(parsing: sdp.serialized()) == sdp)
    }

    @Test func liberalInputs() throws {
        let sdp = try SessionDescription(parsing: """
            v=0
            o=- 1 1 IN IP4 0.0.0.0
            s=-
            i=ignored information line
            b=AS:2000
            t=0 0
            a=tool:someone
            m=audio 0 RTP/SAVPF 109 0
            b=AS:64
            b=TIAS:64000
            a=mid:audio-main_1
            a=bundle-only
            a=rtpmap:109 OPUS/48000/2
            a=rtcp-fb:* nack
            a=rtcp-fb:109 transport-cc
            a=fmtp:109 stereo=1; sprop-stereo=1

            a=x-custom

            """)
        #expect(sdp.bandwidths == [Bandwidth(type: "AS", value: 2000)])
        #expect(sdp.otherAttributes == [SDPAttribute(name: "tool", value: "someone")])
        let audio = sdp.media[0]
        #expect(audio.port == 0 && audio.bundleOnly)
        #expect(audio.payloadTypes == [109, 0])
        #expect(audio.codecs.map(\.payloadType) == [109], "a static payload type without rtpmap is no codec")
        #expect(audio.mid == "audio-main_1")
        #expect(audio.bandwidths == [Bandwidth(type: "AS", value: 64), Bandwidth(type: "TIAS", value: 64000)])
        #expect(audio.codecs.first?.feedback == [RTCPFeedback(type: "nack"), RTCPFeedback(type: "transport-cc")])
        #expect(audio.codecs.first?.parameters.formatted == "stereo=1;sprop-stereo=1")
        #expect(audio.otherAttributes == [SDPAttribute(name: "x-custom")])
        #expect(try SessionDescription(parsing: sdp.serialized()) == sdp)
    }
}
