import SluiceVocabulary

/// Play constraints for video (docs/protocol.md "Constraints"). nil means "no cap".
public struct VideoConstraints: Sendable, Equatable {
    /// The play constraint's `quality`: the word the SDK and the server share.
    public typealias Quality = StreamQuality

    public var width: Int?
    public var height: Int?
    public var fps: Int?
    public var bitrateKbps: Int?
    public var minBitrateKbps: Int?
    public var maxBitrateKbps: Int?
    public var quality: Quality

    public init(width: Int? = nil, height: Int? = nil, fps: Int? = nil, bitrateKbps: Int? = nil,
                minBitrateKbps: Int? = nil, maxBitrateKbps: Int? = nil, quality: Quality = .auto) {
        self.width = width
        self.height = height
        self.fps = fps
        self.bitrateKbps = bitrateKbps
        self.minBitrateKbps = minBitrateKbps
        self.maxBitrateKbps = maxBitrateKbps
        self.quality = quality
    }

    /// A client's video limits; no `quality` is auto, a WCS number the word it stands for.
    public init(_ limits: ConstraintsRequest.Limits) {
        self.init(width: limits.width, height: limits.height, fps: limits.fps, bitrateKbps: limits.bitrate,
                  minBitrateKbps: limits.minBitrate, maxBitrateKbps: limits.maxBitrate,
                  quality: limits.quality?.resolved ?? .auto)
    }
}
