import SluiceWire

/// An RTP header with a one-byte-form extension block (RFC 8285), written straight into the
/// packet: the fixed header, then each element as it is appended, then the padding and the
/// block's length. The same bytes as `RTPHeader.write(into:extensions:)` with every element
/// in the one-byte form, without building the list first. For a sender whose ids are 1...14
/// and whose values are 1...16 bytes, which is what browsers negotiate; it writes one per
/// packet per player.
///
/// It holds the packet's writer from `init` to `finish`, which hands it back.
public struct RTPOneByteExtensionBlock: RTPHeaderExtensionSink {
    @usableFromInline var writer: ByteWriter
    @usableFromInline let start: Int

    /// Writes `header` with the X bit and the block's profile; at least one element must follow.
    @inlinable @inline(__always)
    public init(header: RTPHeader, writer: ByteWriter) {
        self.writer = writer
        header.writeFixed(into: &self.writer, hasExtension: true)
        start = self.writer.offset
        self.writer.write(RTPHeaderExtensionIterator.oneByteProfile)
        self.writer.write(UInt16(0))  // the length, once known
    }

    @inlinable @inline(__always) @discardableResult
    public mutating func append(id: UInt8, uint8 value: UInt8) -> Bool {
        writer.write(id << 4)
        writer.write(value)
        return true
    }

    @inlinable @inline(__always) @discardableResult
    public mutating func append(id: UInt8, uint16 value: UInt16) -> Bool {
        writer.write(id << 4 | 1)
        writer.write(value)
        return true
    }

    @inlinable @inline(__always) @discardableResult
    public mutating func append(id: UInt8, uint24 value: UInt32) -> Bool {
        writer.write(id << 4 | 2)
        writer.writeUInt24(value)
        return true
    }

    /// `value` must be 1...16 bytes (the caller checked once, `RTPHeaderExtensionForm.fitsOneByte`).
    @inlinable @inline(__always) @discardableResult
    public mutating func append(id: UInt8, value: UnsafeRawBufferPointer) -> Bool {
        writer.write(id << 4 | UInt8(truncatingIfNeeded: value.count - 1))
        for byte in value { writer.write(byte) }
        return true
    }

    /// Pads the block to 32 bits, fills in its length and hands the writer back. Returns the
    /// payload offset, or nil when the writer overflowed.
    @inlinable @inline(__always)
    public consuming func finish(into writer: inout ByteWriter) -> Int? {
        let length = self.writer.offset - start - 4
        let padded = (length + 3) & ~3
        self.writer.write(zeros: padded - length)
        self.writer.patch(UInt16(truncatingIfNeeded: padded / 4), at: start + 2)
        writer = self.writer
        return writer.overflowed ? nil : writer.offset
    }
}
