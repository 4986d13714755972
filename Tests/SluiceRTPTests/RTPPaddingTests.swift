import SluiceWire
import Testing
@testable import SluiceRTP

/// A padding-only packet: the header, 255 bytes of padding counted by the last, and the P bit;
/// nothing when the padding does not fit.
struct RTPPaddingTests {
    @Test func padsFullyAndSetsThePBit() throws {
        var bytes = [UInt8](repeating: 0xaa, count: 400)
        let (written, filled) = bytes.withUnsafeMutableBytes { raw -> (Int, Bool) in
            var writer = ByteWriter(raw)
            _ = RTPHeader(marker: false, payloadType: 96, sequenceNumber: 7, timestamp: 9, ssrc: 1).write(into: &writer)
            let filled = RTPPadding.fill(&writer, packet: raw)
            return (writer.offset, filled)
        }
        #expect(filled && written == 12 + 255)
        #expect(bytes[0] & 0x20 != 0 && bytes[written - 1] == 255 && bytes[12..<(written - 1)].allSatisfy { $0 == 0 })
        let packet = try bytes.withUnsafeMutableBytes { raw in
            try RTPPacket(validating: UnsafeMutableRawBufferPointer(rebasing: raw[0..<written])).payload.count
        }
        #expect(packet == 0)
    }

    @Test func refusesWhenItDoesNotFit() {
        var bytes = [UInt8](repeating: 0, count: 100)
        let filled = bytes.withUnsafeMutableBytes { raw -> Bool in
            var writer = ByteWriter(raw)
            _ = RTPHeader(marker: false, payloadType: 96, sequenceNumber: 7, timestamp: 9, ssrc: 1).write(into: &writer)
            return RTPPadding.fill(&writer, packet: raw)
        }
        #expect(!filled && bytes[0] & 0x20 == 0)
    }
}
