import SluiceRTP

/// RFC 7741: each packet is a payload descriptor then a piece of the VP8 frame; the frame is
/// the pieces concatenated. Key frame and size come from the VP8 payload header, which is in
/// the first packet (start of partition 0).
public struct VP8Depacketizer: FrameDepacketizer {
    public init() {}

    public var codec: RecordedCodec { .vp8 }

    public mutating func depacketize(_ packets: [RecordedPacket]) -> DepacketizedFrame? {
        guard !packets.isEmpty else { return nil }
        var data: [UInt8] = []
        var isKeyFrame = false
        var size: (width: Int, height: Int)?
        for (index, packet) in packets.enumerated() {
            let parsed: (length: Int, isKey: Bool, size: (width: Int, height: Int)?)? = packet.payload.withUnsafeBytes { raw in
                guard let descriptor = VP8PayloadDescriptor(parsing: raw) else { return nil }
                return (descriptor.length, descriptor.isKeyFrame, descriptor.keyFrameSize(in: raw))
            }
            guard let parsed, parsed.length <= packet.payload.count else { return nil }
            if index == 0 {
                isKeyFrame = parsed.isKey
                size = parsed.size
            }
            data.append(contentsOf: packet.payload[parsed.length...])
        }
        guard !data.isEmpty else { return nil }
        return DepacketizedFrame(data: data, isKeyFrame: isKeyFrame, width: size?.width, height: size?.height)
    }

    public func canStartFrame(_ payload: [UInt8]) -> Bool {
        payload.withUnsafeBytes { raw in
            guard let descriptor = VP8PayloadDescriptor(parsing: raw) else { return false }
            return descriptor.isStartOfPartition && descriptor.partitionIndex == 0
        }
    }
}
