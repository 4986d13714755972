import Testing
import SluiceWire
@testable import SluiceRTP

@Test func oneByteBlockRoundTrip() throws {
    var list = RTPHeaderExtensionList()
    #expect(true == list.append(id: 1, uint8: 0xaa))
    #expect(true == list.append(id: 2, uint16: 0x1234))
    #expect(true == list.append(id: 3, uint24: 0x0a0b0c))
    #expect(list.form == .oneByte)
    #expect(list.serializedSize == 16)
    let bytes = try #require(serialize(size: list.serializedSize) { list.write(into: &$0) })
    #expect(bytes == [
        0xbe, 0xde, 0x00, 0x03,  // profile, 3 words
        0x10, 0xaa,              // id 1, 1 byte
        0x21, 0x12, 0x34,        // id 2, 2 bytes
        0x32, 0x0a, 0x0b, 0x0c,  // id 3, 3 bytes
        0x00, 0x00, 0x00,        // padding to 32 bits
    ])
    let parsed = bytes.withUnsafeBytes { raw in
        Array(RTPHeaderExtensionIterator(profile: 0xbede, elements: UnsafeRawBufferPointer(rebasing: raw[4...])))
            .map { ($0.id, Array($0.value)) }
    }
    #expect(parsed.map(\.0) == [1, 2, 3])
    #expect(parsed.map(\.1) == [[0xaa], [0x12, 0x34], [0x0a, 0x0b, 0x0c]])
}

@Test func twoByteFormForLargeIdsAndEmptyValues() throws {
    var list = RTPHeaderExtensionList()
    #expect(true == list.append(id: 1, uint8: 7))
    #expect(true == list.append(id: 15, uint8: 9))  // id 15 does not fit the one-byte form
    #expect(list.form == .twoByte)
    let bytes = try #require(serialize(size: list.serializedSize) { list.write(into: &$0) })
    #expect(bytes == [
        0x10, 0x00, 0x00, 0x02,  // profile 0x1000, 2 words
        0x01, 0x01, 0x07,        // id 1, length 1
        0x0f, 0x01, 0x09,        // id 15, length 1
        0x00, 0x00,              // padding
    ])

    var empty = RTPHeaderExtensionList()
    [UInt8]().withUnsafeBytes { #expect(true == empty.append(id: 3, value: $0)) }
    #expect(empty.form == .twoByte)

    var long = RTPHeaderExtensionList()
    [UInt8](repeating: 1, count: 17).withUnsafeBytes { #expect(true == long.append(id: 3, value: $0)) }
    #expect(long.form == .twoByte)
}

@Test func rejectsUnencodableElements() {
    var list = RTPHeaderExtensionList()
    #expect(false == list.append(id: 0, uint8: 1))
    [UInt8](repeating: 0, count: 256).withUnsafeBytes { #expect(false == list.append(id: 1, value: $0)) }
    [UInt8](repeating: 0, count: 120).withUnsafeBytes { #expect(true == list.append(id: 1, value: $0)) }
    [UInt8](repeating: 0, count: 7).withUnsafeBytes { #expect(false == list.append(id: 2, value: $0)) }  // full
    #expect(list.count == 1)
}

@Test func emptyListWritesNothing() {
    let list = RTPHeaderExtensionList()
    #expect(list.serializedSize == 0)
    #expect(serialize(size: 0) { list.write(into: &$0) } == [])
}

@Test func absSendTimeFromMicros() {
    #expect(AbsSendTime.value(micros: 0) == 0)
    #expect(AbsSendTime.value(micros: 1_000_000) == 1 << 18)
    #expect(AbsSendTime.value(micros: 500_000) == 1 << 17)
    #expect(AbsSendTime.value(micros: 64_000_000) == 0)  // wraps every 64 s
    #expect(AbsSendTime.value(micros: 63_999_999) == 0xff_ffff)
    let bytes = mutating([0, 0, 0]) { AbsSendTime.write(0x12_3456, into: $0) }
    #expect(bytes == [0x12, 0x34, 0x56])
    bytes.withUnsafeBytes { #expect(AbsSendTime.read($0) == 0x12_3456) }
}

@Test func audioLevelAndTokens() throws {
    try [UInt8]([0x85]).withUnsafeBytes { raw in
        let level = try #require(AudioLevel(parsing: raw))
        #expect(level.voiceActivity && level.level == 5)
        #expect(level.byte == 0x85)
    }
    #expect(AudioLevel(voiceActivity: false, level: 200).level == 127)
    let mid = try #require(RTPToken("video0"))
    let fromBytes = try #require(Array("video0".utf8).withUnsafeBytes { RTPToken($0) })
    #expect(mid == fromBytes)
    #expect(mid.hashValue == fromBytes.hashValue)
    #expect(mid != RTPToken("video1"))
    #expect(mid.description == "video0")
    #expect(RTPToken("") == nil)
    #expect(RTPToken(String(repeating: "x", count: 33)) == nil)
}

/// A long value appended at write time goes last, in the two-byte form, beside the short
/// ones; short enough, the block stays one-byte. The block reads back element by element.
@Test(arguments: [200, 5])
func anAppendedElementGoesLast(length: Int) throws {
    var list = RTPHeaderExtensionList()
    #expect(true == list.append(id: 3, uint16: 0x1234))
    let long = [UInt8]((0..<length).map { UInt8($0 & 0xff) })
    let bytes = try #require(long.withUnsafeBytes { value in
        // The uint16 element and the appended one, with their bookkeeping, padded to words.
        let elements = length > 16 ? 4 + 2 + length : 3 + 1 + length
        return serialize(size: 4 + (elements + 3) & ~3) { writer in
            _ = list.write(into: &writer, appending: 12, value: value)
        }
    })
    let profile: UInt16 = length > 16 ? 0x1000 : 0xbede
    #expect(bytes[0] == UInt8(profile >> 8) && bytes.count % 4 == 0)
    let parsed = bytes.withUnsafeBytes { raw in
        Array(RTPHeaderExtensionIterator(profile: profile, elements: UnsafeRawBufferPointer(rebasing: raw[4...])))
            .map { ($0.id, Array($0.value)) }
    }
    #expect(parsed.map(\.0) == [3, 12])
    #expect(parsed.last?.1 == long)
}
