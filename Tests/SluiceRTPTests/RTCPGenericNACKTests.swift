import Testing
@testable import SluiceRTP

/// Generic NACK with two FCI entries (RFC 4585 section 6.2.1).
let genericNACKBytes: [UInt8] = [
    0x81, 0xcd, 0x00, 0x04,  // V=2 P=0 FMT=1, PT=205, length 4 (20 bytes)
    0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender
    0x00, 0x00, 0x00, 0x02,  // SSRC of media source
    0x00, 0x64, 0x00, 0x05,  // PID 100, BLP 0b101: 101 and 103 lost too
    0x00, 0xc8, 0x00, 0x00,  // PID 200 alone
]

@Test func parsesAndSerializesGenericNACK() throws {
    let nack = try #require(genericNACKBytes.withUnsafeBytes { RTCPGenericNACK(parsing: $0) })
    #expect(nack.senderSSRC == 1 && nack.mediaSSRC == 2)
    #expect(nack.pairs == [.init(packetID: 100, lostBitmask: 5), .init(packetID: 200, lostBitmask: 0)])
    #expect(nack.lostSequenceNumbers == [100, 101, 103, 200])
    #expect(serialize(size: nack.serializedSize) { nack.write(into: &$0) } == genericNACKBytes)
    let rebuilt = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [100, 101, 103, 200])
    #expect(rebuilt == nack)
}

@Test(arguments: [
    [UInt16]([1]),
    [1, 2, 3, 17],                       // 17 is PID+16: the last bit of the mask
    [1, 18],                             // PID+17 starts a new pair
    [65530, 65535, 0, 1, 9],             // wraps 65535 -> 0 inside one pair
    [65535, 0],
    Array(UInt16(1000)...UInt16(1100)),  // a long burst
])
func nackBuildExpandRoundTrip(lost: [UInt16]) {
    let nack = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: lost)
    #expect(nack.lostSequenceNumbers == lost)
}

@Test func nackPacksAcrossWraparound() {
    let nack = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [65535, 0, 15, 16])
    #expect(nack.pairs == [.init(packetID: 65535, lostBitmask: 0b1000_0000_0000_0001),
                           .init(packetID: 16, lostBitmask: 0)])
}

@Test func nackIgnoresDuplicatesAndRejectsEmptyFCI() {
    let nack = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [5, 5, 6])
    #expect(nack.lostSequenceNumbers == [5, 6])
    let empty = Array(genericNACKBytes[0..<12]).withUnsafeBytes { raw -> RTCPGenericNACK? in
        var copy = Array(raw)
        copy[3] = 0x02
        return copy.withUnsafeBytes { RTCPGenericNACK(parsing: $0) }
    }
    #expect(empty == nil)
}
