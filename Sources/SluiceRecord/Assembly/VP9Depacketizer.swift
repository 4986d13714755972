import SluiceRTP

/// The VP9 RTP payload (draft-ietf-payload-vp9), as Chromium sends it: flexible or
/// non-flexible mode, one spatial layer per stream (simulcast), so a frame is the packets
/// from B to E with their descriptors stripped. The size comes from the scalability
/// structure, which Chromium sends on key frames.
public struct VP9Depacketizer: FrameDepacketizer {
    public init() {}

    public var codec: RecordedCodec { .vp9 }

    public mutating func depacketize(_ packets: [RecordedPacket]) -> DepacketizedFrame? {
        guard !packets.isEmpty else { return nil }
        var data: [UInt8] = []
        var isKeyFrame = false
        var width: Int?
        var height: Int?
        for (index, packet) in packets.enumerated() {
            guard let descriptor = packet.payload.withUnsafeBytes({ VP9PayloadDescriptor(parsing: $0) }),
                  descriptor.length <= packet.payload.count else { return nil }
            if index == 0 {
                // A frame must open with B; without it the start is lost.
                guard descriptor.isStartOfFrame else { return nil }
                isKeyFrame = descriptor.isKeyFrame
            }
            if let w = descriptor.width, let h = descriptor.height {
                width = w
                height = h
            }
            data.append(contentsOf: packet.payload[descriptor.length...])
        }
        guard !data.isEmpty else { return nil }
        return DepacketizedFrame(data: data, isKeyFrame: isKeyFrame, width: width, height: height)
    }

    public func canStartFrame(_ payload: [UInt8]) -> Bool {
        payload.withUnsafeBytes { VP9PayloadDescriptor(parsing: $0)?.isStartOfFrame ?? false }
    }
}
