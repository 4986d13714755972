import SluiceVocabulary

/// One negotiated track of an endpoint, as the worker builds it: codec, payload types,
/// header extension ids, SSRCs, feedback and simulcast layers.
public struct TrackParameters: Sendable, Equatable {
    public var kind: MediaKind
    public var mid: String
    /// Codec name as negotiated ("VP8", "H264", "opus", ...).
    public var codecName: String
    /// The codec's fmtp line, so a player can be offered exactly the publisher's codec.
    public var fmtp: String
    public var payloadType: UInt8
    public var rtxPayloadType: UInt8?
    /// Audio: the payload type of Opus in RED (RFC 2198) when the endpoint agreed to it. A
    /// publisher's packets under it carry redundant blocks; a player gets them so, or stripped
    /// to the primary Opus without it (`RTPSender`).
    public var redPayloadType: UInt8?
    public var clockRate: UInt32
    public var extensions: NegotiatedExtensions
    /// SSRCs the remote side announced for this track (a=ssrc), primary streams only.
    public var remoteSSRCs: [UInt32]
    /// RTX SSRCs the remote side announced (FID groups).
    public var remoteRTXSSRCs: [UInt32]
    /// The server's SSRC for what it sends on this track (play).
    public var localSSRC: UInt32
    /// The server's RTX SSRC for retransmissions (play, when the player negotiated RTX).
    public var localRTXSSRC: UInt32?
    public var feedback: RTCPFeedbackSet
    /// Publish with simulcast: the layers in offer order, by rid or by SSRC (a=ssrc-group:SIM);
    /// paused layers are left out.
    public var simulcast: [SimulcastLayer] = []
    /// Publish: the publisher encrypts its frames end to end (`e2ee: true`, or an origin's link
    /// of such a stream). Nothing past the clear bytes is read (docs/protocol.md section 6).
    public var encrypted = false

    public init(kind: MediaKind, mid: String, codecName: String, fmtp: String, payloadType: UInt8, rtxPayloadType: UInt8?,
                clockRate: UInt32, extensions: NegotiatedExtensions, remoteSSRCs: [UInt32], remoteRTXSSRCs: [UInt32],
                localSSRC: UInt32, feedback: RTCPFeedbackSet) {
        self.kind = kind
        self.mid = mid
        self.codecName = codecName
        self.fmtp = fmtp
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
        self.clockRate = clockRate
        self.extensions = extensions
        self.remoteSSRCs = remoteSSRCs
        self.remoteRTXSSRCs = remoteRTXSSRCs
        self.localSSRC = localSSRC
        self.feedback = feedback
    }
}
