/// The codecs a recording holds, each in the container that carries it without transcoding:
/// VP8, VP9 and AV1 (with Opus) in WebM, H264 (with Opus) in fragmented MP4.
public enum RecordedCodec: String, Sendable, CaseIterable {
    case vp8, vp9, av1, h264, opus

    /// From an SDP codec name (`rtpmap`); nil for one Sluice does not record.
    public init?(codecName: String) {
        switch codecName.lowercased() {
        case "vp8": self = .vp8
        case "vp9": self = .vp9
        case "av1", "av1x": self = .av1
        case "h264": self = .h264
        case "opus": self = .opus
        default: return nil
        }
    }

    public var isVideo: Bool { self != .opus }
}
