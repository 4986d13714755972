import SluiceRTP
import Testing
@testable import SluiceMedia

/// VP8 payload descriptors with a 15-bit picture id and TL0PICIDX (RFC 7741):
/// X=1, S=1; I=1, L=1; M=1 + 15-bit picture id; TL0PICIDX; then one payload byte.
private func descriptor(pictureID: Int, tl0: Int) -> [UInt8] {
    [0x90, 0xc0, UInt8(0x80 | (pictureID >> 8)), UInt8(pictureID & 0xff), UInt8(tl0), 0x00]
}

private func rewrite(_ munger: inout VP8Munger, pictureID: Int, tl0: Int) -> (Int, Int) {
    var bytes = descriptor(pictureID: pictureID, tl0: tl0)
    let written = bytes.withUnsafeMutableBytes { munger.rewrite($0) }
    let outPicture = Int(bytes[2] & 0x7f) << 8 | Int(bytes[3])
    #expect(Int(written.pictureID) == outPicture && Int(written.tl0PicIdx) == Int(bytes[4]))
    return (outPicture, Int(bytes[4]))
}

struct VP8MungerTests {
    @Test func firstSourcePassesThrough() {
        var munger = VP8Munger()
        #expect(rewrite(&munger, pictureID: 1234, tl0: 7) == (1234, 7))
        #expect(rewrite(&munger, pictureID: 1235, tl0: 8) == (1235, 8))
    }

    /// A switch to another layer continues from the last picture sent, across the 15-bit and
    /// 8-bit wraps, and a picture lost upstream after the switch stays a gap of one.
    @Test func switchContinuesAcrossWrapAndKeepsLossVisible() {
        var munger = VP8Munger()
        _ = rewrite(&munger, pictureID: 0x7ffe, tl0: 254)
        #expect(rewrite(&munger, pictureID: 0x7fff, tl0: 255) == (0x7fff, 255))
        munger.restart()  // the new layer numbers its pictures from 500
        #expect(rewrite(&munger, pictureID: 500, tl0: 40) == (0, 0))
        #expect(rewrite(&munger, pictureID: 500, tl0: 40) == (0, 0))      // same picture, next packet
        #expect(rewrite(&munger, pictureID: 502, tl0: 42) == (2, 2))      // 501 lost upstream
        munger.restart()  // back to the first layer, far ahead
        #expect(rewrite(&munger, pictureID: 0x7ff0, tl0: 10) == (3, 3))
    }

    /// Pictures of a dropped temporal layer leave no hole in the picture ids.
    @Test func skippedPicturesLeaveNoHole() {
        var munger = VP8Munger()
        #expect(rewrite(&munger, pictureID: 10, tl0: 1) == (10, 1))
        for _ in 0..<2 {  // two packets of picture 11
            descriptor(pictureID: 11, tl0: 1).withUnsafeBytes { munger.skip(VP8PayloadDescriptor(parsing: $0)!) }
        }
        #expect(rewrite(&munger, pictureID: 12, tl0: 2) == (11, 2))
        descriptor(pictureID: 0x7fff, tl0: 2).withUnsafeBytes { munger.skip(VP8PayloadDescriptor(parsing: $0)!) }
        #expect(rewrite(&munger, pictureID: 0, tl0: 3) == (0x7fff - 2 + 1, 3))
    }

    @Test func retransmissionWritesRecordedValues() {
        var bytes = descriptor(pictureID: 9, tl0: 9)
        bytes.withUnsafeMutableBytes { VP8Munger.write(pictureID: 300, tl0PicIdx: 77, into: $0) }
        #expect(Int(bytes[2] & 0x7f) << 8 | Int(bytes[3]) == 300)
        #expect(bytes[4] == 77)
    }
}
