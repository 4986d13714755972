import SluiceWire

/// A reception report block (RFC 3550 section 6.4.1), carried by sender and receiver reports.
public struct RTCPReportBlock: Equatable, Sendable {
    public static let size = 24

    public var ssrc: UInt32
    /// Fraction of packets lost since the last report, in 1/256ths.
    public var fractionLost: UInt8
    /// 24-bit signed: duplicates can make it negative.
    public var cumulativeLost: Int32
    public var extendedHighestSequenceNumber: UInt32
    public var jitter: UInt32
    /// Middle 32 bits of the NTP timestamp of the last sender report received (LSR).
    public var lastSenderReport: UInt32
    /// Delay since that sender report, in 1/65536 s (DLSR).
    public var delaySinceLastSenderReport: UInt32

    public init(ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32,
                extendedHighestSequenceNumber: UInt32, jitter: UInt32,
                lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    public init?(reading reader: inout ByteReader) {
        guard let ssrc = reader.readUInt32(), let lost = reader.readUInt32(),
              let highest = reader.readUInt32(), let jitter = reader.readUInt32(),
              let lsr = reader.readUInt32(), let dlsr = reader.readUInt32() else { return nil }
        self.ssrc = ssrc
        fractionLost = UInt8(lost >> 24)
        // Sign-extend the low 24 bits.
        cumulativeLost = Int32(bitPattern: lost << 8) >> 8
        extendedHighestSequenceNumber = highest
        self.jitter = jitter
        lastSenderReport = lsr
        delaySinceLastSenderReport = dlsr
    }

    /// `cumulativeLost` is clamped to the 24-bit signed range.
    public func write(into writer: inout ByteWriter) {
        let lost = UInt32(bitPattern: max(-0x80_0000, min(0x7f_ffff, cumulativeLost))) & 0xff_ffff
        writer.write(ssrc)
        writer.write(UInt32(fractionLost) << 24 | lost)
        writer.write(extendedHighestSequenceNumber)
        writer.write(jitter)
        writer.write(lastSenderReport)
        writer.write(delaySinceLastSenderReport)
    }

    static func readBlocks(_ count: Int, from reader: inout ByteReader) -> [RTCPReportBlock]? {
        guard reader.remaining >= count * size else { return nil }
        var blocks: [RTCPReportBlock] = []
        blocks.reserveCapacity(count)
        for _ in 0..<count {
            guard let block = RTCPReportBlock(reading: &reader) else { return nil }
            blocks.append(block)
        }
        return blocks
    }
}
