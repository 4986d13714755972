import SluiceWire

/// A packet that is all padding (RFC 3550 section 5.1, the P bit): what a player's bandwidth
/// probe and the pre-call test's downlink probe send, full size, so each costs one header for
/// the most bytes a packet may pad.
public enum RTPPadding {
    /// The most one packet may pad: its last byte counts the padding, itself included.
    public static let maxBytes = 255

    /// Appends `maxBytes` of padding after the header `writer` holds, and sets the P bit of
    /// that header at the start of `packet`. False when the padding did not fit (nothing to
    /// send then).
    @inlinable
    public static func fill(_ writer: inout ByteWriter, packet: UnsafeMutableRawBufferPointer) -> Bool {
        writer.write(zeros: maxBytes - 1)
        writer.write(UInt8(maxBytes))
        guard !writer.overflowed else { return false }
        packet[0] |= 0x20
        return true
    }
}
