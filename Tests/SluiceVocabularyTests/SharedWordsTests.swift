import SluiceVocabulary
import Testing

/// The words the SDK and the server share: one spelling each, as docs/protocol.md gives it.
@Suite struct SharedWordsTests {
    @Test func codecNamesReadAnyCase() {
        #expect(CodecName(codecName: "VP8") == .vp8)
        #expect(CodecName(codecName: "vp9") == .vp9)
        #expect(CodecName(codecName: "AV1X") == .av1 && CodecName(codecName: "av1") == .av1)
        #expect(CodecName(codecName: "H264") == .h264)
        #expect(CodecName(codecName: "opus")?.isVideo == false && CodecName.vp8.isVideo)
        #expect(CodecName(codecName: "G722") == nil && CodecName(codecName: "") == nil)
    }

    @Test func qualityWordsAndWCSLevels() {
        #expect(StreamQuality(name: "HIGH") == .high && StreamQuality(name: "ultra") == nil)
        #expect(StreamQuality.allCases.map(\.rawValue) == ["auto", "high", "medium", "low"])
        #expect([100, 67, 66, 34, 33, 1].map(StreamQuality.init(level:)) == [.high, .high, .medium, .medium, .low, .low])
        #expect(ConstraintsRequest.Quality.level(70).resolved == .high)
        #expect(ConstraintsRequest.Quality.low == .named(.low) && ConstraintsRequest.Quality.auto.resolved == .auto)
    }

    @Test func kindsAndStatusInfoAreTheProtocolsWords() {
        #expect(MediaKind(rawValue: "audio") == .audio && MediaKind.video.rawValue == "video")
        #expect(StatusInfo.sessionDisconnect == "Stopped by session disconnect")
        #expect(StatusInfo.iceTimeout == "Failed by ICE timeout")
        #expect(StatusInfo.limitExceeded("maxWidth") == "Failed by limit maxWidth")
    }
}
