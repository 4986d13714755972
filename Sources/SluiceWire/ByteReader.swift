/// A bounds-checked big-endian reader over bytes it does not own.
/// Every read checks the remaining length first and returns nil past the end,
/// so parsers of network input never read outside their buffer.
public struct ByteReader {
    public let base: UnsafeRawBufferPointer
    public private(set) var offset: Int

    public init(_ base: UnsafeRawBufferPointer, offset: Int = 0) {
        self.base = base
        self.offset = offset
    }

    public var remaining: Int { base.count - offset }

    public mutating func readUInt8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return base[offset]
    }

    public mutating func readUInt16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { offset += 2 }
        return UInt16(base[offset]) << 8 | UInt16(base[offset + 1])
    }

    public mutating func readUInt24() -> UInt32? {
        guard remaining >= 3 else { return nil }
        defer { offset += 3 }
        return UInt32(base[offset]) << 16 | UInt32(base[offset + 1]) << 8 | UInt32(base[offset + 2])
    }

    public mutating func readUInt32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { offset += 4 }
        return base.loadBigEndianUInt32(at: offset)
    }

    public mutating func readUInt64() -> UInt64? {
        guard let hi = readUInt32(), let lo = readUInt32() else { return nil }
        return UInt64(hi) << 32 | UInt64(lo)
    }

    /// Returns a view of the next `count` bytes (aliasing the input) and advances.
    public mutating func readBytes(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: base[offset..<offset + count])
    }

    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remaining >= count else { return false }
        offset += count
        return true
    }
}

extension UnsafeRawBufferPointer {
    /// Big-endian load with no alignment requirement. The caller has checked bounds.
    @inline(__always)
    public func loadBigEndianUInt16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    @inline(__always)
    public func loadBigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16
            | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }
}

extension UnsafeMutableRawBufferPointer {
    @inlinable @inline(__always)
    public func storeBigEndian(_ value: UInt16, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 1] = UInt8(truncatingIfNeeded: value)
    }

    @inlinable @inline(__always)
    public func storeBigEndian(_ value: UInt32, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 24)
        self[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
        self[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 3] = UInt8(truncatingIfNeeded: value)
    }
}
