import SluiceControl
import SluiceMedia
import SluiceVocabulary

/// An app's caps on what its publishers may ask for (`apps[].limits` in the config).
/// nil means no cap.
public struct PublishLimits: Sendable, Equatable {
    public var maxBitrateKbps: Int?
    public var maxWidth: Int?
    public var maxHeight: Int?
    public var maxFps: Int?

    public init(maxBitrateKbps: Int? = nil, maxWidth: Int? = nil, maxHeight: Int? = nil, maxFps: Int? = nil) {
        self.maxBitrateKbps = maxBitrateKbps
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxFps = maxFps
    }

    /// Whether publish constraints stay within these limits.
    public func allow(_ constraints: StreamConstraints) -> Bool {
        guard let video = constraints.video else { return true }
        func within(_ value: Int?, _ limit: Int?) -> Bool {
            guard let value, let limit else { return true }
            return value <= limit
        }
        return within(video.bitrateKbps, maxBitrateKbps) && within(video.maxBitrateKbps, maxBitrateKbps)
            && within(video.minBitrateKbps, maxBitrateKbps)
            && within(video.width, maxWidth) && within(video.height, maxHeight) && within(video.fps, maxFps)
    }
}

extension PublishLimits {
    /// The tighter of two sets of caps, cap by cap (the app's limits and a token's).
    public func tightened(by other: PublishLimits) -> PublishLimits {
        func lower(_ a: Int?, _ b: Int?) -> Int? {
            switch (a, b) {
            case let (a?, b?): return min(a, b)
            default: return a ?? b
            }
        }
        return PublishLimits(maxBitrateKbps: lower(maxBitrateKbps, other.maxBitrateKbps),
                             maxWidth: lower(maxWidth, other.maxWidth),
                             maxHeight: lower(maxHeight, other.maxHeight),
                             maxFps: lower(maxFps, other.maxFps))
    }

    /// Publish constraints with the bitrate cap folded in, so that it reaches the publisher as
    /// TIAS and REMB even when it declared no bitrate (a declared one is within the cap, or the
    /// publish was refused with 1009).
    public func applied(to constraints: StreamConstraints) -> StreamConstraints {
        guard let cap = maxBitrateKbps, var video = constraints.video else { return constraints }
        if video.bitrateKbps == nil && video.maxBitrateKbps == nil { video.maxBitrateKbps = cap }
        var out = constraints
        out.video = video
        return out
    }
}
