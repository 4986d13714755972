/// A snapshot of one kind's figures (docs/protocol.md section 3).
public struct KindStats: Sendable {
    public var packets: UInt64 = 0
    public var bytes: UInt64 = 0
    public var bitrateKbps: Double = 0
    public var packetsLost: Int64 = 0
    public var fractionLost: Double = 0
    public var jitterMs: Double = 0
    public var rttMs: Double = 0
    public var nacks: UInt64 = 0
    public var plis: UInt64 = 0
    public var firs: UInt64 = 0
    public var codec: String?
    /// Publish audio with the audio level extension: the smoothed level in dBov (AudioLevelMeter).
    public var level: Double?
    /// Audio with Opus RED negotiated: packets in RED received (publish) or sent (play); nil
    /// without RED. A player's audio packets beyond these went stripped to the primary or plain.
    public var redPackets: UInt64?
    // video only
    public var fps: Double = 0
    public var width: Int = 0
    public var height: Int = 0
    public var layer: Int?
    public var keyFrames: UInt64 = 0
    /// Play: starts and layer switches served from the key-frame cache (instant join).
    public var cacheStarts: UInt64?
    /// Play: the player's bandwidth estimate (transport-cc or REMB), kbit/s.
    public var availableBandwidthKbps: Double?
    /// The stream's simulcast layers (video only).
    public var layers: [LayerStats] = []
    /// One SVC encoding's spatial layers, by spatial id (the dependency descriptor's
    /// structure); empty otherwise.
    public var spatialLayers: [LayerStats] = []
    /// Publish: the publisher encrypts its frames end to end (said so, or found); nil for a
    /// stream in the clear.
    public var e2ee: Bool?
    /// Play: the spatial layer forwarded now, when players choose among `spatialLayers`.
    public var spatialLayer: Int?

    public init() {}
}
