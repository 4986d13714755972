import Testing
@testable import SluiceRTP

/// RTP packet with a one-byte extension block (RFC 8285 section 4.2).
let oneByteExtensionPacket: [UInt8] = [
    0x90, 0x60, 0x12, 0x34,  // V=2 P=0 X=1 CC=0, M=0 PT=96, seq 0x1234
    0x00, 0x01, 0xe2, 0x40,  // timestamp 123456
    0xde, 0xad, 0xbe, 0xef,  // SSRC
    0xbe, 0xde, 0x00, 0x03,  // profile 0xBEDE, 3 words
    0x10, 0xaa,              // id 1, L=0 (1 byte): aa
    0x21, 0x12, 0x34,        // id 2, L=1 (2 bytes): 12 34
    0x00,                    // padding between elements
    0x33, 0x01, 0x02, 0x03, 0x04,  // id 3, L=3 (4 bytes)
    0x00,                    // padding to 32 bits
    0xca, 0xfe, 0x01,        // payload
]

/// RTP packet with a two-byte extension block (RFC 8285 section 4.3).
let twoByteExtensionPacket: [UInt8] = [
    0x90, 0xe0, 0x00, 0x01,  // X=1, M=1 PT=96, seq 1
    0x00, 0x00, 0x00, 0x02,  // timestamp 2
    0x00, 0x00, 0x00, 0x03,  // SSRC 3
    0x10, 0x00, 0x00, 0x02,  // profile 0x1000, 2 words
    0x01, 0x00,              // id 1, length 0
    0x14, 0x03, 0x61, 0x62, 0x63,  // id 20, length 3: "abc"
    0x00,                    // padding
    0x99,                    // payload
]

/// RTP packet with two CSRCs and padding.
let csrcPaddingPacket: [UInt8] = [
    0xa2, 0x80, 0xff, 0xff,  // V=2 P=1 X=0 CC=2, M=1 PT=0, seq 65535
    0xff, 0xff, 0xff, 0xff,  // timestamp
    0x11, 0x22, 0x33, 0x44,  // SSRC
    0x00, 0x00, 0x00, 0x0a,  // CSRC 10
    0x00, 0x00, 0x00, 0x0b,  // CSRC 11
    0x01, 0x02, 0x03, 0x04,  // payload
    0x00, 0x00, 0x03,        // padding: 3 bytes, count in the last
]

@Test func parsesOneByteExtensionPacket() throws {
    var bytes = oneByteExtensionPacket
    try bytes.withUnsafeMutableBytes { raw in
        let packet = try #require(RTPPacket(parsing: raw))
        #expect(packet.version == 2)
        #expect(!packet.hasPadding && packet.hasExtension && !packet.marker)
        #expect(packet.payloadType == 96)
        #expect(packet.sequenceNumber == 0x1234)
        #expect(packet.timestamp == 123_456)
        #expect(packet.ssrc == 0xdead_beef)
        #expect(packet.csrcCount == 0)
        #expect(packet.headerLength == 28)
        #expect(packet.payloadOffset == 28)
        #expect(packet.payloadLength == 3)
        #expect(packet.paddingLength == 0)
        #expect(Array(packet.payload) == [0xca, 0xfe, 0x01])
        #expect(packet.extensionProfile == 0xbede)
        #expect(packet.extensionRange == 16..<28)
        let elements = Array(packet.extensions)
        #expect(elements.map(\.id) == [1, 2, 3])
        #expect(elements.map(\.range) == [17..<18, 19..<21, 23..<27])
        #expect(Array(elements[2].value) == [1, 2, 3, 4])
        #expect(Array(try #require(packet.extensionValue(id: 2))) == [0x12, 0x34])
        #expect(packet.extensionValue(id: 4) == nil)
    }
}

@Test func parsesTwoByteExtensionPacket() throws {
    var bytes = twoByteExtensionPacket
    try bytes.withUnsafeMutableBytes { raw in
        let packet = try #require(RTPPacket(parsing: raw))
        #expect(packet.marker)
        #expect(packet.payloadType == 96)
        #expect(packet.extensionProfile == 0x1000)
        #expect(packet.headerLength == 24)
        #expect(packet.payloadLength == 1)
        var elements = packet.extensions
        let next1 = elements.next(), next2 = elements.next(), next3 = elements.next()
        let first = try #require(next1)
        #expect(first.id == 1 && first.value.count == 0)
        let second = try #require(next2)
        #expect(second.id == 20 && Array(second.value) == Array("abc".utf8))
        #expect(next3 == nil)
        #expect(!elements.isMalformed)
    }
}

@Test func parsesCSRCsAndPadding() throws {
    var bytes = csrcPaddingPacket
    try bytes.withUnsafeMutableBytes { raw in
        let packet = try #require(RTPPacket(parsing: raw))
        #expect(packet.hasPadding && packet.marker)
        #expect(packet.payloadType == 0)
        #expect(packet.sequenceNumber == 65535)
        #expect(packet.csrcCount == 2)
        #expect(packet.csrc(at: 0) == 10 && packet.csrc(at: 1) == 11 && packet.csrc(at: 2) == nil)
        #expect(packet.headerLength == 20)
        #expect(packet.paddingLength == 3)
        #expect(packet.payloadLength == 4)
        #expect(Array(packet.payload) == [1, 2, 3, 4])
        #expect(packet.extensionProfile == nil && packet.extensionRange == nil)
        #expect(Array(packet.extensions).isEmpty)
    }
}

@Test(arguments: [
    ([UInt8](), RTPParseError.tooShort),
    ([0x80, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0], .tooShort),               // 11 bytes
    ([0x40, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0], .badVersion),          // version 1
    ([0x00, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0], .badVersion),          // version 0
    ([0x81, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], .truncatedCSRCs),  // CC=1, 3 bytes
    ([0x90, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0xbe, 0xde], .truncatedExtension),  // no length
    ([0x90, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0xbe, 0xde, 0x00, 0x01, 0x10],
     .truncatedExtension),                                                    // 1 word, 1 byte
    ([0xa0, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x00], .badPadding),    // padding count 0
    ([0xa0, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x03], .badPadding),  // 3 bytes, 2 present
    ([0xa0, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0], .badPadding),          // P set, no room at all
])
func rejectsBadInput(bytes: [UInt8], error: RTPParseError) {
    var copy = bytes
    copy.withUnsafeMutableBytes { raw in
        #expect(throws: error) { try RTPPacket(validating: raw) }
        #expect(RTPPacket(parsing: raw) == nil)
    }
}

@Test func paddingLongerThanPayloadIsRejected() {
    // Padding count 5 with 2 bytes after the header.
    var bytes: [UInt8] = [0xa0, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x05]
    bytes.withUnsafeMutableBytes { #expect(RTPPacket(parsing: $0) == nil) }
}

@Test func paddingOnlyPacketHasEmptyPayload() throws {
    var bytes: [UInt8] = [0xa0, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x00, 0x04]
    try bytes.withUnsafeMutableBytes { raw in
        let packet = try #require(RTPPacket(parsing: raw))
        #expect(packet.payloadLength == 0)
        #expect(packet.paddingLength == 4)
    }
}

@Test func malformedExtensionElementEndsIteration() throws {
    // One-byte element claims 4 bytes but only 3 remain in the block.
    var bytes: [UInt8] = [0x90, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
                          0xbe, 0xde, 0x00, 0x01, 0x10, 0xaa, 0x33, 0x01]
    try bytes.withUnsafeMutableBytes { raw in
        let packet = try #require(RTPPacket(parsing: raw))
        var elements = packet.extensions
        let first = elements.next(), second = elements.next()
        #expect(first?.id == 1)
        #expect(second == nil)
        #expect(elements.isMalformed)
    }
}

@Test func settersWriteIntoTheBuffer() throws {
    let result = mutating(csrcPaddingPacket) { raw in
        guard let packet = RTPPacket(parsing: raw) else { return }
        packet.marker = false
        packet.payloadType = 111
        packet.sequenceNumber = 0x0102
        packet.timestamp = 0x0304_0506
        packet.ssrc = 0x0708_090a
    }
    var expected = csrcPaddingPacket
    expected.replaceSubrange(0..<12, with: [0xa2, 0x6f, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a])
    #expect(result == expected)

    let marked = mutating(oneByteExtensionPacket) { raw in
        guard let packet = RTPPacket(parsing: raw) else { return }
        packet.marker = true
        packet.payloadType = 0xff  // masked to 127, marker kept
    }
    #expect(marked[1] == 0xff)
}

@Test func extensionValueIsWritableInPlace() {
    let result = mutating(oneByteExtensionPacket) { raw in
        guard let packet = RTPPacket(parsing: raw), let value = packet.extensionValue(id: 2) else { return }
        TransportWideSequenceNumber.write(0xabcd, into: value)
    }
    #expect(result[19...20] == [0xab, 0xcd])
}

@Test func classifiesRTPAndRTCP() {
    #expect(RTPPacket.looksLikeRTPOrRTCP(firstByte: 0x80))
    #expect(RTPPacket.looksLikeRTPOrRTCP(firstByte: 0xbf))
    #expect(!RTPPacket.looksLikeRTPOrRTCP(firstByte: 0x16))  // DTLS handshake
    #expect(!RTPPacket.looksLikeRTPOrRTCP(firstByte: 0x00))  // STUN
    #expect(RTPPacket.isRTCP(secondByte: 200))  // SR
    #expect(RTPPacket.isRTCP(secondByte: 206))  // PSFB
    #expect(!RTPPacket.isRTCP(secondByte: 96))
    #expect(!RTPPacket.isRTCP(secondByte: 0xe0))  // marker + PT 96
    #expect(!RTPPacket.isRTCP(secondByte: 0xe0 | 0x7f & 96))
    oneByteExtensionPacket.withUnsafeBytes { raw in
        #expect(RTPPacket.looksLikeRTP(raw))
        #expect(!RTPPacket.looksLikeRTCP(raw))
    }
    let rtcp: [UInt8] = [0x81, 0xc9, 0x00, 0x01, 0, 0, 0, 1]
    rtcp.withUnsafeBytes { raw in
        #expect(RTPPacket.looksLikeRTCP(raw))
        #expect(!RTPPacket.looksLikeRTP(raw))
    }
}
