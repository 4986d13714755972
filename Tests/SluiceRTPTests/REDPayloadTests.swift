import SluiceWire
import Testing
@testable import SluiceRTP

/// RED (RFC 2198) as Chromium sends Opus: parse and write with byte vectors, the primary for
/// the strip, and what is refused.
struct REDPayloadTests {
    private static let red: UInt8 = 63

    private func parse(_ bytes: [UInt8]) -> REDPayload? {
        bytes.withUnsafeBytes { REDPayload(parsing: $0, redPayloadType: Self.red) }
    }

    /// The primary alone: a 1-byte header (F=0, PT 111), then Opus.
    @Test func aPrimaryAlone() throws {
        let red = try #require(parse([0x6f, 0xf8, 0xff, 0xfe]))
        #expect(red.count == 1)
        #expect(red.primary == .init(payloadType: 111, timestampOffset: 0, range: 1..<4))
    }

    /// One redundant block, 960 samples (20 ms) older, of 3 bytes, then a 4-byte primary:
    /// F=1|111, offset 960 and length 3 in 14 + 10 bits (0x0F0003), F=0|111.
    @Test func oneRedundantBlock() throws {
        let bytes: [UInt8] = [0xef, 0x0f, 0x00, 0x03, 0x6f, 0xa1, 0xa2, 0xa3, 0xb1, 0xb2, 0xb3, 0xb4]
        let red = try #require(parse(bytes))
        #expect(red.count == 2)
        #expect(red.primary == .init(payloadType: 111, timestampOffset: 0, range: 8..<12))
        let block = bytes.withUnsafeBytes { red.block(0, in: $0) }
        #expect(block == .init(payloadType: 111, timestampOffset: 960, range: 5..<8))
        #expect(bytes.withUnsafeBytes { red.block(1, in: $0) } == nil)
        #expect(Array(bytes[red.primary.range]) == [0xb1, 0xb2, 0xb3, 0xb4])
    }

    /// What `write` makes is those bytes again, and parses back.
    @Test func writeMakesTheSameBytes() {
        var out = [UInt8](repeating: 0, count: 32)
        let written: Int = out.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            let ok = REDPayload.write(primaryPayloadType: 111, primary: [0xb1, 0xb2, 0xb3, 0xb4],
                                      redundant: [(111, 960, [0xa1, 0xa2, 0xa3])], into: &writer)
            return ok ? writer.offset : -1
        }
        #expect(Array(out[..<max(0, written)]) == [0xef, 0x0f, 0x00, 0x03, 0x6f, 0xa1, 0xa2, 0xa3, 0xb1, 0xb2, 0xb3, 0xb4])
    }

    @Test(arguments: [
        ("empty", [UInt8]()),
        ("a redundant header cut short", [0xef, 0x0f, 0x00]),
        ("no primary header after a redundant one", [0xef, 0x0f, 0x00, 0x03]),
        ("a block length past the end", [0xef, 0x0f, 0x00, 0x09, 0x6f, 0xa1, 0xa2]),
        ("RED inside RED (primary)", [0x3f, 0x01, 0x02]),
        ("RED inside RED (redundant)", [0xbf, 0x0f, 0x00, 0x01, 0x6f, 0xa1, 0xb1]),
        ("more blocks than maxBlocks", Array(repeating: [0xef, 0x00, 0x00, 0x00], count: 16).flatMap { $0 } + [0x6f]),
    ] as [(String, [UInt8])])
    func refused(_ name: String, _ bytes: [UInt8]) {
        #expect(parse(bytes) == nil, "\(name)")
    }

    @Test func writeRefusesWhatAHeaderCannotSay() {
        var out = [UInt8](repeating: 0, count: 2048)
        out.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            #expect(!REDPayload.write(primaryPayloadType: 111, primary: [1],
                                      redundant: [(111, 960, Array(repeating: 0, count: 1024))], into: &writer))
            var again = ByteWriter(raw)
            #expect(!REDPayload.write(primaryPayloadType: 111, primary: [1], redundant: [(111, 0x4000, [1])], into: &again))
        }
    }
}

/// A player whose Opus is another payload type than its publisher's reads RED's blocks under
/// its own: every block header's payload type is set, F bits and lengths kept.
struct REDBlockPayloadTypeTests {
    @Test func everyBlockHeaderTakesThePlayersOpus() throws {
        var bytes: [UInt8] = [0xef, 0x0f, 0x00, 0x03, 0xef, 0x07, 0x80, 0x01, 0x6f, 0xa1, 0xa2, 0xa3, 0xc1, 0xb1]
        let red = try #require(bytes.withUnsafeBytes { REDPayload(parsing: $0, redPayloadType: 63) })
        #expect(red.count == 3)
        bytes.withUnsafeMutableBytes { REDPayload.setBlockPayloadTypes(109, blocks: red.count, in: $0) }
        #expect(bytes == [0xed, 0x0f, 0x00, 0x03, 0xed, 0x07, 0x80, 0x01, 0x6d, 0xa1, 0xa2, 0xa3, 0xc1, 0xb1])
        let again = try #require(bytes.withUnsafeBytes { REDPayload(parsing: $0, redPayloadType: 63) })
        #expect(again.primary == .init(payloadType: 109, timestampOffset: 0, range: 13..<14))
    }
}
