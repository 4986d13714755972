import SluiceWire

/// Full intra request, PSFB fmt 4 (RFC 5104 section 4.3.1). The media source field is unused
/// (zero); the entries name the sources asked for a decoder refresh.
public struct RTCPFullIntraRequest: Equatable, Sendable {
    public static let format: UInt8 = 4

    public struct Entry: Equatable, Sendable {
        public var ssrc: UInt32
        /// Incremented by the sender for each new request, so repeats can be told apart.
        public var sequenceNumber: UInt8

        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var entries: [Entry]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    /// Parses the first packet of `buffer`.
    public init?(parsing buffer: UnsafeRawBufferPointer) {
        guard let packet = RTCPPacket.expect(buffer, type: RTCPPacketType.payloadFeedback, count: Self.format)
        else { return nil }
        var reader = ByteReader(packet.body)
        guard let sender = reader.readUInt32(), let media = reader.readUInt32() else { return nil }
        var entries: [Entry] = []
        while reader.remaining >= 8 {
            guard let ssrc = reader.readUInt32(), let word = reader.readUInt32() else { return nil }
            entries.append(Entry(ssrc: ssrc, sequenceNumber: UInt8(word >> 24)))
        }
        guard !entries.isEmpty else { return nil }
        self.init(senderSSRC: sender, mediaSSRC: media, entries: entries)
    }

    public var serializedSize: Int { 12 + entries.count * 8 }

    public func write(into writer: inout ByteWriter) {
        RTCPPacket.writeHeader(into: &writer, count: Self.format, type: RTCPPacketType.payloadFeedback,
                               size: serializedSize)
        writer.write(senderSSRC)
        writer.write(mediaSSRC)
        for entry in entries {
            writer.write(entry.ssrc)
            writer.write(UInt32(entry.sequenceNumber) << 24)
        }
    }
}
