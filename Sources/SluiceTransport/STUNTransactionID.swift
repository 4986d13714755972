import SluiceWire

/// The 96-bit transaction id, held as two integers so it compares and hashes cheaply.
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt32

    public init(high: UInt64, low: UInt32) {
        self.high = high
        self.low = low
    }

    /// Reads 12 bytes; the caller has checked the length.
    init(unchecked bytes: UnsafeRawBufferPointer, at offset: Int) {
        high = UInt64(bytes.loadBigEndianUInt32(at: offset)) << 32 | UInt64(bytes.loadBigEndianUInt32(at: offset + 4))
        low = bytes.loadBigEndianUInt32(at: offset + 8)
    }

    public static func random() -> STUNTransactionID {
        var generator = SystemRandomNumberGenerator()
        return STUNTransactionID(high: generator.next(), low: generator.next())
    }

    public func write(into writer: inout ByteWriter) {
        writer.write(high)
        writer.write(low)
    }

    public var description: String {
        let h = String(high, radix: 16), l = String(low, radix: 16)
        return String(repeating: "0", count: 16 - h.count) + h + String(repeating: "0", count: 8 - l.count) + l
    }
}
