/// A bounds-checked big-endian writer into caller-owned storage.
/// A write past the capacity sets `overflowed` and writes nothing, so a serializer
/// can write a whole message and check once at the end.
///
/// Inlinable: every RTP header and RTCP packet the server writes goes through it, and a call
/// into this module per byte written showed in the packet path's profile.
public struct ByteWriter {
    public let base: UnsafeMutableRawBufferPointer
    @usableFromInline var position: Int
    @usableFromInline var failed = false

    @inlinable
    public init(_ base: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        self.base = base
        self.position = offset
    }

    /// Bytes written so far (where the next write goes).
    @inlinable public var offset: Int { position }
    /// A write did not fit.
    @inlinable public var overflowed: Bool { failed }

    @inlinable public var remaining: Int { base.count - position }

    @inlinable @inline(__always)
    mutating func reserve(_ count: Int) -> Bool {
        if failed || remaining < count { failed = true; return false }
        return true
    }

    @inlinable @inline(__always)
    public mutating func write(_ value: UInt8) {
        guard reserve(1) else { return }
        base[self.position] = value
        position += 1
    }

    @inlinable @inline(__always)
    public mutating func write(_ value: UInt16) {
        guard reserve(2) else { return }
        base.storeBigEndian(value, at: self.position)
        position += 2
    }

    @inlinable @inline(__always)
    public mutating func writeUInt24(_ value: UInt32) {
        guard reserve(3) else { return }
        base[self.position] = UInt8(truncatingIfNeeded: value >> 16)
        base[self.position + 1] = UInt8(truncatingIfNeeded: value >> 8)
        base[self.position + 2] = UInt8(truncatingIfNeeded: value)
        position += 3
    }

    @inlinable @inline(__always)
    public mutating func write(_ value: UInt32) {
        guard reserve(4) else { return }
        base.storeBigEndian(value, at: self.position)
        position += 4
    }

    @inlinable
    public mutating func write(_ value: UInt64) {
        write(UInt32(truncatingIfNeeded: value >> 32))
        write(UInt32(truncatingIfNeeded: value))
    }

    @inlinable @inline(__always)
    public mutating func write(bytes: UnsafeRawBufferPointer) {
        guard reserve(bytes.count) else { return }
        if let src = bytes.baseAddress, bytes.count > 0 {
            (base.baseAddress! + self.position).copyMemory(from: src, byteCount: bytes.count)
        }
        position += bytes.count
    }

    @inlinable @inline(__always)
    public mutating func write(zeros count: Int) {
        guard reserve(count) else { return }
        for i in 0..<count { base[self.position + i] = 0 }
        position += count
    }

    /// Overwrites two bytes already written (a length field filled in afterwards).
    @inlinable
    public mutating func patch(_ value: UInt16, at position: Int) {
        guard position >= 0, position + 2 <= self.position else { failed = true; return }
        base.storeBigEndian(value, at: position)
    }
}
