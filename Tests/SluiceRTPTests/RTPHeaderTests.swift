import Testing
import SluiceWire
@testable import SluiceRTP

@Test func writesFixedHeader() throws {
    let header = RTPHeader(marker: true, payloadType: 96, sequenceNumber: 0x1234, timestamp: 0x0102_0304,
                           ssrc: 0xdead_beef)
    var payloadOffset: Int?
    let bytes = try #require(serialize(size: 12) { payloadOffset = header.write(into: &$0) })
    #expect(payloadOffset == 12)
    #expect(bytes == [0x80, 0xe0, 0x12, 0x34, 0x01, 0x02, 0x03, 0x04, 0xde, 0xad, 0xbe, 0xef])
}

@Test func writesHeaderWithExtensionsThatParsesBack() throws {
    let header = RTPHeader(marker: false, payloadType: 111, sequenceNumber: 7, timestamp: 960, ssrc: 42)
    var list = RTPHeaderExtensionList()
    list.append(id: 1, uint8: 0x85)
    list.append(id: 3, uint16: 0x00ff)
    var storage = [UInt8](repeating: 0, count: 64)
    let packetLength = try storage.withUnsafeMutableBytes { raw -> Int in
        var writer = ByteWriter(raw)
        let offset = try #require(header.write(into: &writer, extensions: list))
        #expect(offset == 12 + 4 + 8)
        writer.write(UInt16(0xcafe))  // payload
        return writer.offset
    }
    var packetBytes = Array(storage[0..<packetLength])
    try packetBytes.withUnsafeMutableBytes { raw in
        let packet = try #require(RTPPacket(parsing: raw))
        #expect(RTPHeader(packet) == header)
        #expect(packet.payloadLength == 2)
        #expect(Array(packet.extensions).map(\.id) == [1, 3])
        #expect(TransportWideSequenceNumber.read(UnsafeRawBufferPointer(try #require(packet.extensionValue(id: 3))))
                == 0x00ff)
    }
}

@Test func copiesExtensionsOfReceivedPacket() throws {
    var received = oneByteExtensionPacket
    let written = try received.withUnsafeMutableBytes { raw -> [UInt8] in
        let packet = try #require(RTPPacket(parsing: raw))
        let header = RTPHeader(marker: true, payloadType: 100, sequenceNumber: 1, timestamp: 2, ssrc: 3)
        return try #require(serialize(size: packet.headerLength) {
            #expect(header.write(into: &$0, copyingExtensionsOf: packet) == packet.headerLength)
        })
    }
    #expect(written[0..<12] == [0x90, 0xe4, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3])
    #expect(written[12...] == oneByteExtensionPacket[12..<28])
}

@Test func headerWriteReportsOverflow() {
    var storage = [UInt8](repeating: 0, count: 8)
    storage.withUnsafeMutableBytes { raw in
        var writer = ByteWriter(raw)
        #expect(RTPHeader(marker: false, payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0)
            .write(into: &writer) == nil)
    }
}
