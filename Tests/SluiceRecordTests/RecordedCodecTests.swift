import Testing
@testable import SluiceRecord

@Suite struct RecordedCodecTests {
    @Test func sdpNamesMapToRecordedCodecs() {
        #expect(RecordedCodec(codecName: "VP8") == .vp8)
        #expect(RecordedCodec(codecName: "AV1X") == .av1)
        #expect(RecordedCodec(codecName: "H264") == .h264)
        #expect(RecordedCodec(codecName: "opus")?.isVideo == false)
        #expect(RecordedCodec(codecName: "G722") == nil)
    }
}
