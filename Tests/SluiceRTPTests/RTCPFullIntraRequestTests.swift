import Testing
@testable import SluiceRTP

/// Full intra request with one entry (RFC 5104 section 4.3.1).
let fullIntraRequestBytes: [UInt8] = [
    0x84, 0xce, 0x00, 0x04,  // V=2 P=0 FMT=4, PT=206, length 4 (20 bytes)
    0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender
    0x00, 0x00, 0x00, 0x00,  // SSRC of media source: unused
    0x11, 0x22, 0x33, 0x44,  // FCI: SSRC
    0x2a, 0x00, 0x00, 0x00,  // command sequence number 42, reserved
]

@Test func parsesAndSerializesFullIntraRequest() throws {
    let fir = try #require(fullIntraRequestBytes.withUnsafeBytes { RTCPFullIntraRequest(parsing: $0) })
    #expect(fir == RTCPFullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 0x1122_3344, sequenceNumber: 42)]))
    #expect(serialize(size: fir.serializedSize) { fir.write(into: &$0) } == fullIntraRequestBytes)
}
