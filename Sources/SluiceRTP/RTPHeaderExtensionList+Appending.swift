import SluiceWire

extension RTPHeaderExtensionList {
    /// Writes the block with one more element last, whose bytes are not copied into the list:
    /// a long value (up to 255 bytes, such as a dependency descriptor that brings its
    /// structure) beside the short ones, without making every list as large. The one-byte form
    /// when every element fits it, else the two-byte form. Out of line (not `@inlinable`):
    /// only packets that carry such a value come here, and the ordinary `write` stays small
    /// enough to inline into a sender's packet path. False (nothing written) when `id` or the
    /// value cannot be encoded.
    public func write(into writer: inout ByteWriter, appending id: UInt8, value: UnsafeRawBufferPointer) -> Bool {
        guard RTPHeaderExtensionForm.fitsTwoByte(id: id, length: value.count) else { return false }
        let twoByte = requiresTwoByte || !RTPHeaderExtensionForm.fitsOneByte(id: id, length: value.count)
        var length = value.count + (twoByte ? 2 : 1)
        forEach { _, bytes in length += bytes.count + (twoByte ? 2 : 1) }
        let padded = (length + 3) & ~3
        writer.write(twoByte ? RTPHeaderExtensionForm.twoByte.profile : RTPHeaderExtensionForm.oneByte.profile)
        writer.write(UInt16(padded / 4))
        func element(_ id: UInt8, _ bytes: UnsafeRawBufferPointer) {
            if twoByte {
                writer.write(id)
                writer.write(UInt8(bytes.count))
            } else {
                writer.write(id << 4 | UInt8(bytes.count - 1))
            }
            writer.write(bytes: bytes)
        }
        forEach(element)
        element(id, value)
        writer.write(zeros: padded - length)
        return true
    }
}

extension RTPHeader {
    /// The fixed header and an extension block of `extensions` with (`id`, `value`) last
    /// (`RTPHeaderExtensionList.write(into:appending:value:)`). Returns the payload offset, or
    /// nil when the writer overflowed or the element cannot be encoded.
    public func write(into writer: inout ByteWriter, extensions: borrowing RTPHeaderExtensionList, appending id: UInt8,
                      value: UnsafeRawBufferPointer) -> Int? {
        writeFixed(into: &writer, hasExtension: true)
        guard extensions.write(into: &writer, appending: id, value: value) else { return nil }
        return writer.overflowed ? nil : writer.offset
    }
}
