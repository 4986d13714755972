import Testing
@testable import SluiceRTP

/// Picture loss indication (RFC 4585 section 6.3.1): no FCI.
let pictureLossIndicationBytes: [UInt8] = [
    0x81, 0xce, 0x00, 0x02,  // V=2 P=0 FMT=1, PT=206, length 2 (12 bytes)
    0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender
    0x4b, 0x1a, 0x2c, 0x3d,  // SSRC of media source
]

@Test func parsesAndSerializesPictureLossIndication() throws {
    let pli = try #require(pictureLossIndicationBytes.withUnsafeBytes { RTCPPictureLossIndication(parsing: $0) })
    #expect(pli == RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 0x4b1a_2c3d))
    #expect(serialize(size: pli.serializedSize) { pli.write(into: &$0) } == pictureLossIndicationBytes)
}

@Test func pictureLossIndicationChecksFormat() {
    var fir = pictureLossIndicationBytes
    fir[0] = 0x84
    #expect(fir.withUnsafeBytes { RTCPPictureLossIndication(parsing: $0) } == nil)
}
