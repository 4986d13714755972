/// A publisher's codec of one kind, as far as a player's answer needs it: what a node
/// publishes this in the cluster's stream record, so that another node answers its players
/// before a relay link is up.
public struct StreamCodec: Sendable, Equatable {
    public var name: String
    public var payloadType: UInt8
    public var clockRate: UInt32
    public var fmtp: String
    /// Audio: the payload type of the publisher's Opus in RED, when it sends RED. The link
    /// carries its packets as they came, so an edge's players get RED or its primary as here.
    public var redPayloadType: UInt8?

    public init(name: String, payloadType: UInt8, clockRate: UInt32, fmtp: String, redPayloadType: UInt8? = nil) {
        self.name = name
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.fmtp = fmtp
        self.redPayloadType = redPayloadType
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
