import SluiceWire

/// Receiver report, PT 201 (RFC 3550 section 6.4.2). Profile-specific extensions are skipped.
public struct RTCPReceiverReport: Equatable, Sendable {
    public var ssrc: UInt32
    /// At most 31 blocks; `write` sends the first 31.
    public var reportBlocks: [RTCPReportBlock]

    public init(ssrc: UInt32, reportBlocks: [RTCPReportBlock] = []) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
    }

    /// Parses the first packet of `buffer`.
    public init?(parsing buffer: UnsafeRawBufferPointer) {
        guard let packet = RTCPPacket.expect(buffer, type: RTCPPacketType.receiverReport) else { return nil }
        var reader = ByteReader(packet.body)
        guard let ssrc = reader.readUInt32(),
              let blocks = RTCPReportBlock.readBlocks(Int(packet.count), from: &reader) else { return nil }
        self.init(ssrc: ssrc, reportBlocks: blocks)
    }

    public var serializedSize: Int { 8 + min(reportBlocks.count, 31) * RTCPReportBlock.size }

    public func write(into writer: inout ByteWriter) {
        let blocks = reportBlocks.prefix(31)
        RTCPPacket.writeHeader(into: &writer, count: UInt8(blocks.count), type: RTCPPacketType.receiverReport,
                               size: serializedSize)
        writer.write(ssrc)
        for block in blocks { block.write(into: &writer) }
    }
}
