/// Reads bits MSB first and Exp-Golomb codes (H.264 section 9.1) from an RBSP; the same
/// reads serve AV1, whose f(n) and uvlc() are these. Every read returns nil past the end
/// instead of trapping.
struct ExpGolombReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var bitOffset = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func readBit() -> UInt32? {
        guard bitOffset < bytes.count * 8 else { return nil }
        let bit = UInt32(bytes[bitOffset >> 3] >> (7 - UInt8(bitOffset & 7)) & 1)
        bitOffset += 1
        return bit
    }

    mutating func readBits(_ count: Int) -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<count {
            guard let bit = readBit() else { return nil }
            value = value << 1 | bit
        }
        return value
    }

    mutating func readFlag() -> Bool? {
        readBit().map { $0 == 1 }
    }

    /// ue(v). Codes longer than 32 bits are rejected: no syntax element needs them.
    mutating func readUnsigned() -> UInt32? {
        var zeros = 0
        while true {
            guard let bit = readBit() else { return nil }
            if bit == 1 { break }
            zeros += 1
            guard zeros < 32 else { return nil }
        }
        guard let suffix = readBits(zeros) else { return nil }
        return UInt32((UInt64(1) << zeros) - 1 + UInt64(suffix))
    }

    /// se(v).
    mutating func readSigned() -> Int32? {
        guard let code = readUnsigned() else { return nil }
        let magnitude = Int64(code / 2) + Int64(code & 1)
        return Int32(truncatingIfNeeded: code & 1 == 1 ? magnitude : -magnitude)
    }
}
