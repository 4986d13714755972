import SluiceWire

/// Receiver estimated maximum bitrate, PSFB fmt 15 with the 'REMB' identifier
/// (draft-alvestrand-rmcat-remb). The bitrate travels as an 18-bit mantissa and 6-bit exponent.
public struct RTCPREMB: Equatable, Sendable {
    public static let format: UInt8 = 15
    static let identifier: UInt32 = 0x5245_4d42  // "REMB"

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var mantissa: UInt32
    public var exponent: UInt8
    /// At most 255 sources; `write` sends the first 255.
    public var ssrcs: [UInt32]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, mantissa: UInt32, exponent: UInt8, ssrcs: [UInt32]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.mantissa = mantissa & 0x3_ffff
        self.exponent = exponent & 0x3f
        self.ssrcs = ssrcs
    }

    /// Encodes `bitrate` (bits per second), rounding down to what 18 mantissa bits can hold.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, bitrate: UInt64, ssrcs: [UInt32]) {
        var mantissa = bitrate
        var exponent: UInt8 = 0
        while mantissa > 0x3_ffff {
            mantissa >>= 1
            exponent += 1
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, mantissa: UInt32(mantissa),
                  exponent: exponent, ssrcs: ssrcs)
    }

    /// Bits per second, saturating at UInt64.max for exponents that overflow.
    public var bitrate: UInt64 {
        let value = UInt64(mantissa)
        guard value != 0 else { return 0 }
        guard exponent < 64, value.leadingZeroBitCount >= Int(exponent) else { return .max }
        return value << exponent
    }

    /// Parses the first packet of `buffer`.
    public init?(parsing buffer: UnsafeRawBufferPointer) {
        guard let packet = RTCPPacket.expect(buffer, type: RTCPPacketType.payloadFeedback, count: Self.format)
        else { return nil }
        var reader = ByteReader(packet.body)
        guard let sender = reader.readUInt32(), let media = reader.readUInt32(),
              reader.readUInt32() == Self.identifier,
              let count = reader.readUInt8(), let rate = reader.readUInt24(),
              reader.remaining >= Int(count) * 4 else { return nil }
        var ssrcs: [UInt32] = []
        ssrcs.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let ssrc = reader.readUInt32() else { return nil }
            ssrcs.append(ssrc)
        }
        self.init(senderSSRC: sender, mediaSSRC: media, mantissa: rate & 0x3_ffff,
                  exponent: UInt8(rate >> 18), ssrcs: ssrcs)
    }

    public var serializedSize: Int { 20 + min(ssrcs.count, 255) * 4 }

    public func write(into writer: inout ByteWriter) {
        let sent = ssrcs.prefix(255)
        RTCPPacket.writeHeader(into: &writer, count: Self.format, type: RTCPPacketType.payloadFeedback,
                               size: serializedSize)
        writer.write(senderSSRC)
        writer.write(mediaSSRC)
        writer.write(Self.identifier)
        writer.write(UInt8(sent.count))
        writer.writeUInt24(UInt32(exponent & 0x3f) << 18 | mantissa & 0x3_ffff)
        for ssrc in sent { writer.write(ssrc) }
    }
}
