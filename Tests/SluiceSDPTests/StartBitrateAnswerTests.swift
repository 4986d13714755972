import SluiceVocabulary
import Testing
@testable import SluiceSDP

/// `x-google-start-bitrate` in a publisher's answer: in the chosen video codec's a=fmtp only,
/// for each codec Chromium offers, and the answer still parses (`answer` checks the round trip).
@Suite struct StartBitrateAnswerTests {
    static func fmtpLines(_ sdp: String) -> [String] {
        sdp.split(separator: "\r\n").map(String.init).filter { $0.hasPrefix("a=fmtp:") }
    }

    @Test func withoutTheSettingTheAnswerHasNoStartBitrate() throws {
        let (n, _) = try answer(Offers.text("chromium-publish"), .publish)
        #expect(!n.answerSDP.contains("x-google"))
    }

    /// VP8 has no a=fmtp line in Chromium's offer: one is written for it.
    @Test func vp8GetsAnFmtpLineOfItsOwn() throws {
        let offer = try Offers.text("chromium-publish")
        #expect(!offer.contains("a=fmtp:96 "))
        let (n, a) = try answer(offer, .publish) { $0.videoStartBitrateKbps = 2500 }
        let video = a.media[1]
        #expect(video.codecs[0].name == "VP8")
        #expect(video.codecs[0].parameters == [FormatParameter(name: "x-google-start-bitrate", value: "2500")])
        #expect(n.answerSDP.contains("\r\na=fmtp:96 x-google-start-bitrate=2500\r\n"))
        // Only the video codec: not its RTX, not audio.
        #expect(video.codecs[1].parameters == [FormatParameter(name: "apt", value: "96")])
        #expect(Self.fmtpLines(n.answerSDP).filter { $0.contains("x-google") } == ["a=fmtp:96 x-google-start-bitrate=2500"])
        // Players are matched against the negotiated codec, which keeps the offer's parameters.
        #expect(n.session.video?.codec.fmtp == "")
    }

    @Test(arguments: [
        ("H264", "a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f;x-google-start-bitrate=1800"),
        ("VP9", "a=fmtp:98 profile-id=0;x-google-start-bitrate=1800"),
        ("AV1", "a=fmtp:45 level-idx=5;profile=0;tier=0;x-google-start-bitrate=1800"),
    ])
    func otherCodecsGetItAfterTheirOwnParameters(codec: String, line: String) throws {
        let (n, a) = try answer(Offers.text("chromium-publish"), .publish,
                                configuration: .init(videoCodecs: [codec])) { $0.videoStartBitrateKbps = 1800 }
        #expect(a.media[1].codecs[0].hasName(codec))
        #expect(Self.fmtpLines(n.answerSDP).contains(line))
        #expect(n.session.video.map { !$0.codec.fmtp.contains("x-google") } == true)
    }

    /// A start bitrate the offer carried (a client that munged its SDP) is replaced, not doubled.
    @Test func replacesOneTheOfferCarried() throws {
        let offer = OfferBuilder.offer([OfferBuilder.video(
            pts: "96", codecs: "a=rtpmap:96 VP8/90000\na=fmtp:96 x-google-start-bitrate=300;x-google-max-bitrate=900")])
        let (n, a) = try answer(offer, .publish) { $0.videoStartBitrateKbps = 2000 }
        #expect(a.media[0].codecs[0].parameters == [FormatParameter(name: "x-google-max-bitrate", value: "900"),
                                                  FormatParameter(name: "x-google-start-bitrate", value: "2000")])
        #expect(n.answerSDP.components(separatedBy: "x-google-start-bitrate").count == 2)
    }

    @Test func playAnswersAndAudioCarryNone() throws {
        let (publish, _) = try answer(Offers.text("chromium-publish"), .publish)
        let (n, _) = try answer(Offers.text("chromium-play"), .play, publisher: PublisherCodecs(publish.session)) {
            $0.videoStartBitrateKbps = 2500
        }
        #expect(!n.answerSDP.contains("x-google"))
        let audioOnly = OfferBuilder.offer([OfferBuilder.audio()])
        let (audio, _) = try answer(audioOnly, .publish) { $0.videoStartBitrateKbps = 2500 }
        #expect(!audio.answerSDP.contains("x-google"))
    }

    @Test func aZeroStartBitrateWritesNothing() throws {
        let (n, _) = try answer(Offers.text("chromium-publish"), .publish) { $0.videoStartBitrateKbps = 0 }
        #expect(!n.answerSDP.contains("x-google"))
    }
}
