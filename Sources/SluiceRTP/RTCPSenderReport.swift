import SluiceWire

/// Sender report, PT 200 (RFC 3550 section 6.4.1). Profile-specific extensions are skipped.
public struct RTCPSenderReport: Equatable, Sendable {
    public var ssrc: UInt32
    /// 64-bit NTP timestamp: seconds since 1900 in the high word, fraction in the low word.
    public var ntpTimestamp: UInt64
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    /// At most 31 blocks; `write` sends the first 31.
    public var reportBlocks: [RTCPReportBlock]

    public init(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32,
                octetCount: UInt32, reportBlocks: [RTCPReportBlock] = []) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reportBlocks = reportBlocks
    }

    /// Parses the first packet of `buffer`.
    public init?(parsing buffer: UnsafeRawBufferPointer) {
        guard let packet = RTCPPacket.expect(buffer, type: RTCPPacketType.senderReport) else { return nil }
        var reader = ByteReader(packet.body)
        guard let ssrc = reader.readUInt32(), let ntp = reader.readUInt64(), let rtp = reader.readUInt32(),
              let packets = reader.readUInt32(), let octets = reader.readUInt32(),
              let blocks = RTCPReportBlock.readBlocks(Int(packet.count), from: &reader) else { return nil }
        self.init(ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: rtp, packetCount: packets,
                  octetCount: octets, reportBlocks: blocks)
    }

    /// The middle 32 bits of the NTP timestamp, which receivers echo as LSR.
    public var compactNTP: UInt32 { UInt32(truncatingIfNeeded: ntpTimestamp >> 16) }

    public var serializedSize: Int { 28 + min(reportBlocks.count, 31) * RTCPReportBlock.size }

    public func write(into writer: inout ByteWriter) {
        let blocks = reportBlocks.prefix(31)
        RTCPPacket.writeHeader(into: &writer, count: UInt8(blocks.count), type: RTCPPacketType.senderReport,
                               size: serializedSize)
        writer.write(ssrc)
        writer.write(ntpTimestamp)
        writer.write(rtpTimestamp)
        writer.write(packetCount)
        writer.write(octetCount)
        for block in blocks { block.write(into: &writer) }
    }
}
