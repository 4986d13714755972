/// A bounds-checked big-endian writer into caller-owned storage.
/// A write past the capacity sets `overflowed` and writes nothing, so a serializer
/// can write a whole message and check once at the end.
public struct ByteWriter {
    public let base: UnsafeMutableRawBufferPointer
    public private(set) var offset: Int
    public private(set) var overflowed = false

    public init(_ base: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        self.base = base
        self.offset = offset
    }

    public var remaining: Int { base.count - offset }

    @inline(__always)
    private mutating func reserve(_ count: Int) -> Bool {
        if overflowed || remaining < count { overflowed = true; return false }
        return true
    }

    public mutating func write(_ value: UInt8) {
        guard reserve(1) else { return }
        base[offset] = value
        offset += 1
    }

    public mutating func write(_ value: UInt16) {
        guard reserve(2) else { return }
        base.storeBigEndian(value, at: offset)
        offset += 2
    }

    public mutating func writeUInt24(_ value: UInt32) {
        guard reserve(3) else { return }
        base[offset] = UInt8(truncatingIfNeeded: value >> 16)
        base[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
        base[offset + 2] = UInt8(truncatingIfNeeded: value)
        offset += 3
    }

    public mutating func write(_ value: UInt32) {
        guard reserve(4) else { return }
        base.storeBigEndian(value, at: offset)
        offset += 4
    }

    public mutating func write(_ value: UInt64) {
        write(UInt32(truncatingIfNeeded: value >> 32))
        write(UInt32(truncatingIfNeeded: value))
    }

    public mutating func write(bytes: UnsafeRawBufferPointer) {
        guard reserve(bytes.count) else { return }
        if let src = bytes.baseAddress, bytes.count > 0 {
            (base.baseAddress! + offset).copyMemory(from: src, byteCount: bytes.count)
        }
        offset += bytes.count
    }

    public mutating func write(zeros count: Int) {
        guard reserve(count) else { return }
        for i in 0..<count { base[offset + i] = 0 }
        offset += count
    }

    /// Overwrites two bytes already written (a length field filled in afterwards).
    public mutating func patch(_ value: UInt16, at position: Int) {
        guard position >= 0, position + 2 <= offset else { overflowed = true; return }
        base.storeBigEndian(value, at: position)
    }
}
