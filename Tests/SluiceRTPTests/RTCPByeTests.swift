import Testing
@testable import SluiceRTP

/// BYE with one source and a reason (RFC 3550 section 6.6).
let byeBytes: [UInt8] = [
    0x81, 0xcb, 0x00, 0x03,  // V=2 P=0 SC=1, PT=203, length 3 (16 bytes)
    0xca, 0xfe, 0xba, 0xbe,  // SSRC
    0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f,  // reason: length 5, "hello"
    0x00, 0x00,              // padding to 32 bits
]

@Test func parsesAndSerializesBye() throws {
    let bye = try #require(byeBytes.withUnsafeBytes { RTCPBye(parsing: $0) })
    #expect(bye.ssrcs == [0xcafe_babe])
    #expect(bye.reason == Array("hello".utf8))
    #expect(serialize(size: bye.serializedSize) { bye.write(into: &$0) } == byeBytes)
}

@Test func byeWithoutReason() throws {
    let bytes: [UInt8] = [0x82, 0xcb, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 2]
    let bye = try #require(bytes.withUnsafeBytes { RTCPBye(parsing: $0) })
    #expect(bye == RTCPBye(ssrcs: [1, 2]))
    #expect(serialize(size: bye.serializedSize) { bye.write(into: &$0) } == bytes)
}

@Test func byeRejectsMissingSources() {
    let bytes: [UInt8] = [0x83, 0xcb, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 2]  // SC=3, two present
    #expect(bytes.withUnsafeBytes { RTCPBye(parsing: $0) } == nil)
}
