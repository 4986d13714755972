import SluiceWire
import Testing

/// RFC 7983 section 7's table, every one of the 256 first bytes against it.
@Suite struct PacketClassTests {
    static let table: [(ClosedRange<UInt8>, PacketClass)] = [
        (0...3, .stun),
        (4...15, .unknown),
        (16...19, .zrtp),
        (20...63, .dtls),
        (64...79, .turnChannel),
        (80...127, .unknown),
        (128...191, .rtp),
        (192...255, .unknown),
    ]

    @Test func everyFirstByte() {
        var covered = 0
        for (range, expected) in Self.table {
            for byte in range {
                #expect(PacketClass.of(firstByte: byte) == expected, "first byte \(byte)")
                covered += 1
            }
        }
        #expect(covered == 256)
    }

    /// The edges, where a hand-written range is most often off by one.
    @Test(arguments: [(UInt8(3), PacketClass.stun), (4, .unknown), (15, .unknown), (16, .zrtp), (19, .zrtp),
                      (20, .dtls), (22, .dtls), (63, .dtls), (64, .turnChannel), (79, .turnChannel), (80, .unknown),
                      (127, .unknown), (128, .rtp), (0x80, .rtp), (191, .rtp), (192, .unknown)])
    func edges(byte: UInt8, expected: PacketClass) {
        #expect(PacketClass.of(firstByte: byte) == expected)
    }
}
