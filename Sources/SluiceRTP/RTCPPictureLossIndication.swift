import SluiceWire

/// Picture loss indication, PSFB fmt 1 (RFC 4585 section 6.3.1): a request for a key frame.
public struct RTCPPictureLossIndication: Equatable, Sendable {
    public static let format: UInt8 = 1

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32

    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    /// Parses the first packet of `buffer`.
    public init?(parsing buffer: UnsafeRawBufferPointer) {
        guard let packet = RTCPPacket.expect(buffer, type: RTCPPacketType.payloadFeedback, count: Self.format)
        else { return nil }
        var reader = ByteReader(packet.body)
        guard let sender = reader.readUInt32(), let media = reader.readUInt32() else { return nil }
        self.init(senderSSRC: sender, mediaSSRC: media)
    }

    public var serializedSize: Int { 12 }

    public func write(into writer: inout ByteWriter) {
        RTCPPacket.writeHeader(into: &writer, count: Self.format, type: RTCPPacketType.payloadFeedback, size: 12)
        writer.write(senderSSRC)
        writer.write(mediaSSRC)
    }
}
