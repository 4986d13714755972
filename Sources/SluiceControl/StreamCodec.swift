/// A publisher's codec of one kind, as far as a player's answer needs it: what a node
/// publishes this in the cluster's stream record, so that another node answers its players
/// before a relay link is up.
public struct StreamCodec: Sendable, Equatable {
    public var name: String
    public var payloadType: UInt8
    public var clockRate: UInt32
    public var fmtp: String

    public init(name: String, payloadType: UInt8, clockRate: UInt32, fmtp: String) {
        self.name = name
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.fmtp = fmtp
    }
}

/// Both kinds' codecs of a stream (nil: the publisher sends no such kind).
public struct StreamCodecs: Sendable, Equatable {
    public var audio: StreamCodec?
    public var video: StreamCodec?
    /// Simulcast layers the publisher sends (1 without simulcast).
    public var layers: Int

    public init(audio: StreamCodec?, video: StreamCodec?, layers: Int) {
        self.audio = audio
        self.video = video
        self.layers = layers
    }
}
