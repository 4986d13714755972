import SluiceWire

/// An RTP header with a one-byte-form extension block (RFC 8285), written straight into the
/// packet: the fixed header, then each element as it is appended, then the padding and the
/// block's length. The same bytes as `RTPHeader.write(into:extensions:)` with every element
/// in the one-byte form, without building the list first. For a sender whose ids are 1...14
/// and whose values are 1...16 bytes, which is what browsers negotiate; it writes one per
/// packet per player.
public struct RTPOneByteExtensionBlock {
    @usableFromInline let start: Int

    /// Writes `header` with the X bit and the block's profile; at least one element must follow.
    @inlinable
    public init(header: RTPHeader, into writer: inout ByteWriter) {
        header.writeFixed(into: &writer, hasExtension: true)
        start = writer.offset
        writer.write(RTPHeaderExtensionIterator.oneByteProfile)
        writer.write(UInt16(0))  // the length, once known
    }

    @inlinable
    public func append(id: UInt8, uint8 value: UInt8, into writer: inout ByteWriter) {
        writer.write(id << 4)
        writer.write(value)
    }

    @inlinable
    public func append(id: UInt8, uint16 value: UInt16, into writer: inout ByteWriter) {
        writer.write(id << 4 | 1)
        writer.write(value)
    }

    /// The low 24 bits of `value` (abs-send-time).
    @inlinable
    public func append(id: UInt8, uint24 value: UInt32, into writer: inout ByteWriter) {
        writer.write(id << 4 | 2)
        writer.writeUInt24(value)
    }

    /// `value` must be 1...16 bytes (the caller checked once, `RTPHeaderExtensionForm.fitsOneByte`).
    @inlinable
    public func append(id: UInt8, bytes value: UnsafeRawBufferPointer, into writer: inout ByteWriter) {
        writer.write(id << 4 | UInt8(truncatingIfNeeded: value.count - 1))
        for byte in value { writer.write(byte) }
    }

    /// Pads the block to 32 bits and fills in its length. Returns the payload offset, or nil
    /// when the writer overflowed.
    @inlinable
    public func finish(into writer: inout ByteWriter) -> Int? {
        let length = writer.offset - start - 4
        let padded = (length + 3) & ~3
        writer.write(zeros: padded - length)
        writer.patch(UInt16(truncatingIfNeeded: padded / 4), at: start + 2)
        return writer.overflowed ? nil : writer.offset
    }
}
