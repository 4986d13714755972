import Glibc
import Testing
@testable import SluiceWire

@Test(arguments: [
    (UInt16(1), UInt16(0), true),
    (UInt16(0), UInt16(65535), true),      // wraparound
    (UInt16(65535), UInt16(0), false),
    (UInt16(5), UInt16(5), false),
    (UInt16(0x8000), UInt16(0), false),    // exactly half: not newer
    (UInt16(0x7fff), UInt16(0), true),
])
func isNewer(a: UInt16, b: UInt16, expected: Bool) {
    #expect(SequenceNumber.isNewer(a, than: b) == expected)
}

@Test func unwrapAcrossWrapAndReorder() {
    var u = SequenceUnwrapper()
    let input: [UInt16] = [65533, 65534, 65535, 0, 65535, 1, 3, 2]
    let expected: [Int64] = [65533, 65534, 65535, 65536, 65535, 65537, 65539, 65538]
    #expect(input.map { u.unwrap($0) } == expected)
    #expect(u.highest == 65539)
}

@Test func unwrapTimestamps() {
    var u = TimestampUnwrapper()
    #expect(u.unwrap(0xffff_ff00) == 0xffff_ff00)
    #expect(u.unwrap(0x0000_0100) == 0x1_0000_0100)
    #expect(u.unwrap(0xffff_ff80) == 0xffff_ff80)
}

@Test func byteReaderStopsAtEnd() {
    let bytes: [UInt8] = [0x12, 0x34, 0x56]
    bytes.withUnsafeBytes { raw in
        var r = ByteReader(raw)
        #expect(r.readUInt16() == 0x1234)
        #expect(r.readUInt16() == nil)
        #expect(r.readUInt8() == 0x56)
        #expect(r.readUInt8() == nil)
    }
}

@Test func byteWriterFlagsOverflow() {
    var storage = [UInt8](repeating: 0, count: 5)
    storage.withUnsafeMutableBytes { raw in
        var w = ByteWriter(raw)
        w.write(UInt32(0xdeadbeef))
        #expect(!w.overflowed)
        w.write(UInt16(1))
        #expect(w.overflowed)
        #expect(w.offset == 4)
    }
    #expect(storage == [0xde, 0xad, 0xbe, 0xef, 0])
}

@Test func socketAddressRoundTrip() throws {
    let a = try #require(SocketAddress(host: "127.0.0.1", port: 5000))
    #expect(a.isLoopback)
    #expect(a.description == "127.0.0.1:5000")
    var storage = sockaddr_storage()
    a.write(to: &storage)
    #expect(SocketAddress(&storage) == a)
    let b = try #require(SocketAddress(host: "::1", port: 9))
    #expect(b.isLoopback && b.family == .ipv6)
}

@Test func poolRecyclesBuffers() {
    let pool = PacketBufferPool(capacity: 2)
    let a = pool.take(), b = pool.take()
    #expect(a != nil && b != nil && a != b)
    #expect(pool.take() == nil)
    pool.give(a!)
    #expect(pool.take() == a)
}
