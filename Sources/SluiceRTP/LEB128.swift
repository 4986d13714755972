import SluiceWire

extension ByteReader {
    /// leb128() (AV1 specification section 4.10.5): little-endian groups of 7 bits, the high bit
    /// of each byte saying another follows. nil past the end, after 8 bytes without an end, or
    /// above 2^32 - 1, which the specification forbids; so the result always fits in Int.
    mutating func readLEB128() -> Int? {
        var value: UInt64 = 0
        for index in 0..<8 {
            guard let byte = readUInt8() else { return nil }
            value |= UInt64(byte & 0x7f) << (7 * UInt64(index))
            if byte & 0x80 == 0 {
                return value <= UInt64(UInt32.max) ? Int(value) : nil
            }
        }
        return nil
    }
}
