import SluiceMedia

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
