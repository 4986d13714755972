import SluiceVocabulary

/// One frame's bytes as a depacketizer rebuilt them from its RTP payloads, before the
/// assembler stamps it with its kind, codec and unwrapped timestamp.
public struct DepacketizedFrame: Sendable, Equatable {
    /// The codec's frame bytes as a container wants them (VP8/VP9 frame, H264 Annex B access
    /// unit, AV1 low-overhead OBUs with obu_size, an Opus packet).
    public var data: [UInt8]
    public var isKeyFrame: Bool
    /// Picture size when the frame carries it (key frames; VP9 with a scalability structure).
    public var width: Int?
    public var height: Int?

    public init(data: [UInt8], isKeyFrame: Bool, width: Int? = nil, height: Int? = nil) {
        self.data = data
        self.isKeyFrame = isKeyFrame
        self.width = width
        self.height = height
    }
}

/// Turns the packets of one frame (same RTP timestamp, in sequence order) into the frame's
/// bytes. Runs on the recorder thread, so it may allocate. Every implementation must be safe on
/// arbitrary bytes: a malformed payload gives nil, never a trap.
public protocol FrameDepacketizer {
    var codec: RecordedCodec { get }
    /// The frame's bytes, or nil when the payloads do not make a frame (malformed, or a piece
    /// missing that the codec's own framing shows, such as an FU-A without its start).
    mutating func depacketize(_ packets: [RecordedPacket]) -> DepacketizedFrame?
    /// Whether this payload can be the first packet of a frame by the codec's own marks
    /// (VP8 S bit on partition 0, VP9 B bit, AV1 Z clear, H264 not an FU-A middle).
    func canStartFrame(_ payload: [UInt8]) -> Bool
}

/// The depacketizer for a codec.
public func makeDepacketizer(for codec: RecordedCodec) -> any FrameDepacketizer {
    switch codec {
    case .vp8: return VP8Depacketizer()
    case .vp9: return VP9Depacketizer()
    case .h264: return H264Depacketizer()
    case .av1: return AV1Depacketizer()
    case .opus: return OpusDepacketizer()
    }
}
