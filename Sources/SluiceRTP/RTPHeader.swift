import SluiceWire

/// The fields of an outgoing RTP header. Writing produces the 12-byte fixed header (no CSRCs:
/// an SFU forwards with its own SSRCs) and optionally an extension block; the caller then copies
/// the payload at the returned offset.
public struct RTPHeader: Equatable, Sendable {
    public var marker: Bool
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32

    @inlinable
    public init(marker: Bool, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
    }

    /// The header fields of a received packet.
    @inlinable
    public init(_ packet: RTPPacket) {
        self.init(marker: packet.marker, payloadType: packet.payloadType,
                  sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, ssrc: packet.ssrc)
    }

    @inlinable @inline(__always)
    func writeFixed(into writer: inout ByteWriter, hasExtension: Bool) {
        writer.write(UInt8(hasExtension ? 0x90 : 0x80))
        writer.write((marker ? 0x80 : 0) | payloadType & 0x7f)
        writer.write(sequenceNumber)
        writer.write(timestamp)
        writer.write(ssrc)
    }

    /// Writes the fixed header. Returns the payload offset, or nil when the writer overflowed.
    @inlinable
    public func write(into writer: inout ByteWriter) -> Int? {
        writeFixed(into: &writer, hasExtension: false)
        return writer.overflowed ? nil : writer.offset
    }

    /// Writes the fixed header and a fresh extension block (no X bit when `extensions` is empty).
    @inlinable
    public func write(into writer: inout ByteWriter, extensions: borrowing RTPHeaderExtensionList) -> Int? {
        writeFixed(into: &writer, hasExtension: !extensions.isEmpty)
        extensions.write(into: &writer)
        return writer.overflowed ? nil : writer.offset
    }

    /// Writes the fixed header and copies the extension block of `packet` unchanged.
    @inlinable
    public func write(into writer: inout ByteWriter, copyingExtensionsOf packet: RTPPacket) -> Int? {
        guard let range = packet.extensionRange else { return write(into: &writer) }
        writeFixed(into: &writer, hasExtension: true)
        let block = UnsafeRawBufferPointer(start: packet.base + range.lowerBound - 4, count: range.count + 4)
        writer.write(bytes: block)
        return writer.overflowed ? nil : writer.offset
    }
}
