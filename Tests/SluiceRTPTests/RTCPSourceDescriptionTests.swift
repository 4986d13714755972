import Testing
@testable import SluiceRTP

/// SDES with one chunk carrying a CNAME (RFC 3550 section 6.5.1).
let sourceDescriptionBytes: [UInt8] = [
    0x81, 0xca, 0x00, 0x06,  // V=2 P=0 SC=1, PT=202, length 6 (28 bytes)
    0x12, 0x34, 0x56, 0x78,  // SSRC
    0x01, 0x10,              // CNAME, 16 bytes
    0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37,  // "01234567"
    0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66,  // "89abcdef"
    0x00, 0x00,              // end of items, padding to 32 bits
]

@Test func parsesAndSerializesSourceDescription() throws {
    let sdes = try #require(sourceDescriptionBytes.withUnsafeBytes { RTCPSourceDescription(parsing: $0) })
    #expect(sdes.chunks.count == 1)
    #expect(sdes.chunks[0].ssrc == 0x1234_5678)
    #expect(sdes.chunks[0].cnameString == "0123456789abcdef")
    #expect(sdes == RTCPSourceDescription(chunks: [.init(ssrc: 0x1234_5678, cname: "0123456789abcdef")]))
    #expect(serialize(size: sdes.serializedSize) { sdes.write(into: &$0) } == sourceDescriptionBytes)
}

@Test func skipsOtherItemsAndReadsSecondChunk() throws {
    let bytes: [UInt8] = [
        0x82, 0xca, 0x00, 0x06,  // SC=2, length 6 (28 bytes)
        0x00, 0x00, 0x00, 0x01,  // chunk 1: SSRC 1
        0x02, 0x02, 0x41, 0x42,  // NAME "AB" (skipped)
        0x01, 0x01, 0x78,        // CNAME "x"
        0x00,                    // end of items (already aligned after it)
        0x00, 0x00, 0x00, 0x02,  // chunk 2: SSRC 2
        0x01, 0x02, 0x79, 0x7a,  // CNAME "yz"
        0x00, 0x00, 0x00, 0x00,  // end of items and padding
    ]
    let sdes = try #require(bytes.withUnsafeBytes { RTCPSourceDescription(parsing: $0) })
    #expect(sdes.chunks.map(\.ssrc) == [1, 2])
    #expect(sdes.chunks.map(\.cnameString) == ["x", "yz"])
}

@Test func rejectsUnterminatedChunk() {
    let bytes: [UInt8] = [
        0x81, 0xca, 0x00, 0x02,
        0x00, 0x00, 0x00, 0x01,
        0x01, 0x02, 0x41, 0x42,  // CNAME "AB", then no null octet before the end
    ]
    #expect(bytes.withUnsafeBytes { RTCPSourceDescription(parsing: $0) } == nil)
}
