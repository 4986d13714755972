import SluiceRTP

/// The VP9 RTP payload (draft-ietf-payload-vp9), as Chromium sends it: flexible or
/// non-flexible mode; a frame is the packets from B to E with their descriptors stripped, and
/// a picture of several spatial layers (an SVC recording above its lowest layer) becomes one
/// superframe. The size comes from the scalability
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
        // Each layer frame's size: a picture of several spatial layers (SVC) is one superframe.
        var frameSizes: [Int] = []
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
            if descriptor.isStartOfFrame || frameSizes.isEmpty { frameSizes.append(0) }
            frameSizes[frameSizes.count - 1] += packet.payload.count - descriptor.length
            data.append(contentsOf: packet.payload[descriptor.length...])
        }
        guard !data.isEmpty else { return nil }
        if frameSizes.count > 1 { Self.appendSuperframeIndex(frameSizes, to: &data) }
        return DepacketizedFrame(data: data, isKeyFrame: isKeyFrame, width: width, height: height)
    }

    /// The VP9 superframe index (VP9 bitstream specification, annex B): a marker byte, each
    /// frame's size in `mag` little-endian bytes, the marker again; at most 8 frames.
    static func appendSuperframeIndex(_ sizes: [Int], to data: inout [UInt8]) {
        guard sizes.count <= 8, let largest = sizes.max(), largest < 1 << 32 else { return }
        let mag = largest < 1 << 8 ? 1 : largest < 1 << 16 ? 2 : largest < 1 << 24 ? 3 : 4
        let marker = UInt8(0xc0 | (mag - 1) << 3 | (sizes.count - 1))
        data.append(marker)
        for size in sizes {
            for byte in 0..<mag { data.append(UInt8(truncatingIfNeeded: size >> (8 * byte))) }
        }
        data.append(marker)
    }

    public func canStartFrame(_ payload: [UInt8]) -> Bool {
        payload.withUnsafeBytes { VP9PayloadDescriptor(parsing: $0)?.isStartOfFrame ?? false }
    }
}
