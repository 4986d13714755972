import SluiceVocabulary

/// What was agreed for one accepted audio or video m-line.
public struct NegotiatedMedia: Sendable, Hashable {
    public var kind: MediaKind
    public var mid: String
    /// The answer's direction: recvonly for publish, sendonly for play.
    public var direction: MediaDirection
    public var codec: NegotiatedCodec
    public var rtxPayloadType: Int?
    /// Audio: the `red/48000/2` payload type when RED over this Opus was agreed.
    public var redPayloadType: Int?
    public var feedback: RTCPFeedbackSet
    public var extensions: NegotiatedExtensions
    public var rtcpReducedSize: Bool
    /// The client's SSRCs from a=ssrc lines (FID secondaries folded into `rtxSSRC`).
    /// Empty when the client announced none (rid-only simulcast, or stacks that omit them).
    public var remoteSSRCs: [RemoteSSRC]
    /// Publish only: the layers in offer order; empty without simulcast.
    public var simulcastLayers: [SimulcastLayer]
    /// Play only: what the server sends from, as given to the negotiator and written in the answer.
    public var localSSRCs: LocalSSRCs?
    /// The b=TIAS cap written into the answer, in bit/s.
    public var maxBitrate: Int?

    public init(kind: MediaKind, mid: String, direction: MediaDirection, codec: NegotiatedCodec,
                rtxPayloadType: Int? = nil, redPayloadType: Int? = nil, feedback: RTCPFeedbackSet = .init(),
                extensions: NegotiatedExtensions = .init(), rtcpReducedSize: Bool = false,
                remoteSSRCs: [RemoteSSRC] = [], simulcastLayers: [SimulcastLayer] = [],
                localSSRCs: LocalSSRCs? = nil, maxBitrate: Int? = nil) {
        self.kind = kind
        self.mid = mid
        self.direction = direction
        self.codec = codec
        self.rtxPayloadType = rtxPayloadType
        self.redPayloadType = redPayloadType
        self.feedback = feedback
        self.extensions = extensions
        self.rtcpReducedSize = rtcpReducedSize
        self.remoteSSRCs = remoteSSRCs
        self.simulcastLayers = simulcastLayers
        self.localSSRCs = localSSRCs
        self.maxBitrate = maxBitrate
    }
}
