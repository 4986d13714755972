import SluiceWire

/// The video layers an edge wants on a relay link: RTCP APP (PT 204), subtype 2, name "SLCE"
/// (docs/cluster.md, "Link messages"). Sent by the edge when the set changes and with its
/// periodic reports, so a lost one is repaired; the origin forwards only these layers (and
/// audio).
///
///     serial (32) | layer mask (32): bit i wants video layer i
public struct RTCPLinkLayers: Equatable, Sendable {
    public static let subtype: UInt8 = 2

    public var senderSSRC: UInt32
    /// Grows by one per change; the origin ignores a request older than the one it has.
    public var serial: UInt32
    public var mask: UInt32

    public init(senderSSRC: UInt32, serial: UInt32, mask: UInt32) {
        self.senderSSRC = senderSSRC
        self.serial = serial
        self.mask = mask
    }

    /// Parses the first packet of `buffer`: nil unless it is a well-formed layer request.
    public init?(parsing buffer: UnsafeRawBufferPointer) {
        guard var reader = RTCPLinkMessage.body(buffer, subtype: Self.subtype),
              let sender = reader.readUInt32(), reader.readUInt32() == RTCPLinkMessage.name,
              let serial = reader.readUInt32(), let mask = reader.readUInt32(), reader.remaining == 0 else { return nil }
        self.init(senderSSRC: sender, serial: serial, mask: mask)
    }

    public var serializedSize: Int { 20 }

    public func write(into writer: inout ByteWriter) {
        RTCPPacket.writeHeader(into: &writer, count: Self.subtype, type: RTCPPacketType.application, size: serializedSize)
        writer.write(senderSSRC)
        writer.write(RTCPLinkMessage.name)
        writer.write(serial)
        writer.write(mask)
    }
}
