/// The codecs Sluice looks inside (the forwarder, for key frames and their size) and records,
/// by their SDP name (`rtpmap`). The raw value is the lowercase name.
public enum CodecName: String, Sendable, Hashable, CaseIterable {
    case vp8, vp9, av1, h264, opus

    /// From an SDP codec name, any case (`AV1X`, the name of AV1 before its registration, is
    /// AV1); nil for a codec Sluice neither inspects nor records.
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
