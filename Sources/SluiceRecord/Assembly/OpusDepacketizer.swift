import SluiceRTP

/// RFC 7587: an RTP payload is one Opus packet, which is what a container stores as a frame.
public struct OpusDepacketizer: FrameDepacketizer {
    public init() {}

    public var codec: RecordedCodec { .opus }

    public mutating func depacketize(_ packets: [RecordedPacket]) -> DepacketizedFrame? {
        // One packet per frame; the assembler never gives more, and an empty payload is no packet.
        guard packets.count == 1, let packet = packets.first,
              packet.payload.withUnsafeBytes({ OpusPayload(parsing: $0) }) != nil else { return nil }
        return DepacketizedFrame(data: packet.payload, isKeyFrame: true)
    }

    public func canStartFrame(_ payload: [UInt8]) -> Bool { !payload.isEmpty }
}
