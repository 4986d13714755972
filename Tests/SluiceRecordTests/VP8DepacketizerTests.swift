import Testing
@testable import SluiceRecord

@Suite struct VP8DepacketizerTests {
    @Test func stripsExtendedDescriptorsAndReadsKeyFrameSize() throws {
        // X=1 S=1 PID=0; I L T K all present, 15-bit PictureID; then the frame tag (P=0) and
        // the key frame header: start code 9d 01 2a, 640 and 480 little-endian.
        let first: [UInt8] = [0x90, 0xf0, 0x81, 0x23, 0x05, 0x65,
                              0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xe0, 0x01, 0x11]
        // X=1 S=0: I only, 7-bit PictureID.
        let second: [UInt8] = [0x80, 0x80, 0x12, 0x22, 0x33]
        var depacketizer = VP8Depacketizer()
        let built = depacketizer.depacketize([videoPacket(1, 900, first), videoPacket(2, 900, marker: true, second)])
        let frame = try #require(built)
        #expect(frame.data == [0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xe0, 0x01, 0x11, 0x22, 0x33])
        #expect(frame.isKeyFrame)
        #expect(frame.width == 640 && frame.height == 480)
        #expect(depacketizer.canStartFrame(first) && !depacketizer.canStartFrame(second))
    }

    @Test func interFrameIsNotKeyAndHasNoSize() throws {
        var depacketizer = VP8Depacketizer()
        let built = depacketizer.depacketize(vp8Frame(1800, sequences: [5, 6], key: false))
        let frame = try #require(built)
        #expect(!frame.isKeyFrame && frame.width == nil)
        #expect(frame.data == [0x01, 0x00, 0x00, 0xaa, 0xbb, 0xaa, 0xbb])
    }

    @Test func truncatedDescriptorGivesNil() {
        var depacketizer = VP8Depacketizer()
        #expect(depacketizer.depacketize([videoPacket(1, 0, marker: true, [0x90, 0x80])]) == nil)  // I set, no PictureID
        #expect(depacketizer.depacketize([videoPacket(1, 0, marker: true, [])]) == nil)
        #expect(depacketizer.depacketize([]) == nil)
    }
}
