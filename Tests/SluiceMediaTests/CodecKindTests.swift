import Testing
@testable import SluiceMedia

struct CodecKindTests {
    /// A key frame's first packet per codec, and the size the producer learns from it.
    @Test(arguments: [
        // VP8: descriptor, frame tag, start code, 14-bit sizes.
        ("vp8", [0x10, 0x00, 0x00, 0x00, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xb4, 0x00], 320, 180),
        // VP9: scalability structure with one spatial layer's size.
        ("vp9", [0x8e, 0x80, 0x01, 0x10, 0x02, 0x80, 0x01, 0xe0, 0x82, 0x49], 640, 480),
        // H264: a single SPS NAL unit (baseline, 720x404).
        ("h264", [0x67, 0x42, 0xc0, 0x1e, 0xd9, 0x00, 0xb4, 0x35, 0xf9, 0xe1, 0x00, 0x00, 0x03, 0x00, 0x01, 0x00,
                  0x00, 0x03, 0x00, 0x3c, 0x0f, 0x16, 0x2e, 0x48], 720, 404),
        // AV1: aggregation header N=1 W=2, the sequence header aomenc wrote for 1280x720, a frame OBU.
        ("av1", [0x28, 0x0c, 0x08, 0x00, 0x00, 0x00, 0x2d, 0x4c, 0xff, 0xb3, 0xcd, 0xaf, 0x90, 0x04,
                 0x30, 0x10, 0x00, 0x8c], 1280, 720),
    ] as [(String, [UInt8], Int, Int)])
    func learnsKeyFrameSize(codec: String, payload: [UInt8], width: Int, height: Int) {
        let kind = CodecKind(codec)
        payload.withUnsafeBytes { raw in
            #expect(kind.isKeyFrame(raw))
            let size = kind.keyFrameSize(raw)
            #expect(size?.width == width && size?.height == height)
        }
    }

    @Test func av1KeyFrameWithoutSequenceHeaderHasNoSize() {
        // N=1 but only a frame OBU: the key frame is seen, its size stays unknown.
        let payload: [UInt8] = [0x18, 0x30, 0x10, 0x00, 0x8c]
        payload.withUnsafeBytes { raw in
            #expect(CodecKind("AV1").isKeyFrame(raw))
            #expect(CodecKind("AV1").keyFrameSize(raw) == nil)
        }
    }
}
