import Testing
@testable import SluiceRecord

@Suite struct OpusHeadTests {
    /// RFC 7845 section 5.1, field by field.
    @Test func theHeaderIsRFC7845s() {
        let head = OpusHead.bytes(channels: 2)
        #expect(head.count == 19)
        #expect(Array(head[0..<8]) == Array("OpusHead".utf8))
        #expect(head[8] == 1, "version")
        #expect(head[9] == 2, "channels")
        #expect(head[10] == 0 && head[11] == 0, "pre-skip 0")
        #expect(Array(head[12..<16]) == [0x80, 0xBB, 0x00, 0x00], "48000 little-endian")
        #expect(Array(head[16..<19]) == [0, 0, 0], "gain 0, mapping family 0")
    }

    /// RFC 6716 section 3.1: the TOC's config gives the frame size, its code the frame count.
    @Test func packetDurationsComeFromTheTOC() {
        func samples(_ bytes: [UInt8]) -> Int64 { bytes.withUnsafeBytes { OpusHead.packetSamples($0) } }
        #expect(samples([0xF8]) == 960, "config 31 (CELT 20 ms), one frame")
        #expect(samples([0x78]) == 960, "config 15 (hybrid 20 ms)")
        #expect(samples([0x08 | 1]) == 1920, "config 1 (SILK 20 ms), two frames")
        #expect(samples([0x18 | 3, 3]) == 8640, "config 3 (SILK 60 ms), code 3 with 3 frames")
        #expect(samples([0x80]) == 120, "config 16 (CELT 2.5 ms)")
        #expect(samples([]) == 0)
        #expect(samples([0x03]) == 0, "code 3 without its count byte")
    }
}
