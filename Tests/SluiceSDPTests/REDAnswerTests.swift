import SluiceVocabulary
import Testing
@testable import SluiceSDP

/// Opus RED (RFC 2198) in answers: first for a publisher, after Opus for a player, only over
/// the chosen Opus, and only when the server allows it (`AnswerParameters.red`).
@Suite struct REDAnswerTests {
    private static func audioOffer(direction: String, red: String) -> String {
        OfferBuilder.offer([OfferBuilder.audio(direction: direction, codecs: "a=rtpmap:111 opus/48000/2\n" + red,
                                               pts: "111 63")])
    }

    @Test func aChromiumPublisherIsAnsweredREDFirst() throws {
        let (n, a) = try answer(Offers.text("chromium-publish"), .publish) { $0.red = true }
        let audio = try #require(n.session.audio)
        #expect(audio.codec.name == "opus" && audio.codec.payloadType == 111)
        #expect(audio.redPayloadType == 63)
        #expect(a.media[0].payloadTypes == [63, 111])
        let red = try #require(a.media[0].codecs.first)
        #expect(red.name == "red" && red.clockRate == 48000 && red.channels == 2)
        #expect(red.parameters == [FormatParameter(name: "111/111")] && red.feedback.isEmpty)
        #expect(n.answerSDP.contains("a=rtpmap:63 red/48000/2\r\na=fmtp:63 111/111\r\n"))
        // Video is untouched: RED is audio's alone here (Chromium's red/90000 is not taken).
        #expect(a.media[1].payloadTypes == [96, 97])
    }

    @Test func aChromiumPlayerIsAnsweredREDAfterOpus() throws {
        let publisher = PublisherCodecs(audio: NegotiatedCodec(name: "opus", payloadType: 111, clockRate: 48000, channels: 2),
                                        video: NegotiatedCodec(name: "VP8", payloadType: 96, clockRate: 90000))
        let (n, a) = try answer(Offers.text("chromium-play"), .play, publisher: publisher) { $0.red = true }
        #expect(n.session.audio?.redPayloadType == 63)
        #expect(a.media[0].payloadTypes == [111, 63])
    }

    @Test func withoutTheSwitchNoRED() throws {
        let (n, a) = try answer(Offers.text("chromium-publish"), .publish)
        #expect(n.session.audio?.redPayloadType == nil)
        #expect(a.media[0].payloadTypes == [111])
        #expect(!n.answerSDP.contains("red/48000"))
    }

    @Test func redOverAnotherCodecOrWithoutFmtpIsNotTaken() throws {
        for red in ["a=rtpmap:63 red/48000/2\na=fmtp:63 0/0",  // blocks of another codec
                    "a=rtpmap:63 red/48000/2",  // no fmtp: the blocks could be anything
                    "a=rtpmap:63 red/48000/2\na=fmtp:63 111/0",  // a mix
                    "a=rtpmap:63 red/8000/1\na=fmtp:63 111/111",  // not Opus's clock
                    "a=rtpmap:63 red/48000/2\na=fmtp:63 " + Array(repeating: "111", count: 17).joined(separator: "/")] {
            let (n, a) = try answer(Self.audioOffer(direction: "sendonly", red: red), .publish) { $0.red = true }
            #expect(n.session.audio?.redPayloadType == nil, "\(red)")
            #expect(a.media[0].payloadTypes == [111], "\(red)")
        }
        let (n, a) = try answer(Self.audioOffer(direction: "sendonly", red: "a=rtpmap:63 RED/48000/2\na=fmtp:63 111/111/111"),
                                .publish) { $0.red = true }
        #expect(n.session.audio?.redPayloadType == 63)
        #expect(a.media[0].payloadTypes == [63, 111])
    }
}
