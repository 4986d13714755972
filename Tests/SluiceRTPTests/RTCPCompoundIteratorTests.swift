import Testing
@testable import SluiceRTP

@Test func iteratesCompoundPacket() throws {
    let compound = senderReportBytes + sourceDescriptionBytes + genericNACKBytes
    var types: [UInt8] = []
    var counts: [UInt8] = []
    var ranges: [Range<Int>] = []
    compound.withUnsafeBytes { raw in
        var iterator = RTCPCompoundIterator(raw)
        while let (packet, range) = iterator.next() {
            types.append(packet.packetType)
            counts.append(packet.count)
            ranges.append(range)
        }
        #expect(!iterator.isMalformed)
    }
    #expect(types == [200, 202, 205])
    #expect(counts == [1, 1, 1])
    #expect(ranges == [0..<52, 52..<80, 80..<100])
}

@Test func stopsAtBadLength() {
    // The second packet claims 8 words but only 2 follow.
    let compound = pictureLossIndicationBytes + [0x81, 0xc9, 0x00, 0x08, 0, 0, 0, 1]
    compound.withUnsafeBytes { raw in
        var iterator = RTCPCompoundIterator(raw)
        let first = iterator.next()
        #expect(first?.packet.packetType == RTCPPacketType.payloadFeedback)
        #expect(iterator.next() == nil)
        #expect(iterator.isMalformed)
        #expect(iterator.error == .badLength)
    }
}

@Test(arguments: [
    ([UInt8]([0x81, 0xc9, 0x00]), RTCPParseError.tooShort),
    ([0x41, 0xc9, 0x00, 0x00], .badVersion),
    ([0xa0, 0xc9, 0x00, 0x01, 0, 0, 0, 0x00], .badPadding),  // padding count 0
    ([0xa0, 0xc9, 0x00, 0x01, 0, 0, 0, 0x05], .badPadding),  // more padding than body
])
func rejectsBadHeaders(bytes: [UInt8], error: RTCPParseError) {
    bytes.withUnsafeBytes { raw in
        #expect(throws: error) { try RTCPPacket(validating: raw) }
        var iterator = RTCPCompoundIterator(raw)
        #expect(iterator.next() == nil)
        #expect(iterator.error == error)
    }
}

@Test func paddingIsExcludedFromBody() throws {
    let bytes: [UInt8] = [0xa0, 0xc9, 0x00, 0x02, 0, 0, 0, 9, 0, 0, 0, 4]
    try bytes.withUnsafeBytes { raw in
        let packet = try #require(RTCPPacket(parsing: raw))
        #expect(packet.hasPadding)
        #expect(packet.bytes.count == 12)
        #expect(Array(packet.body) == [0, 0, 0, 9])
    }
}
