import SluiceTransport

/// What a worker needs to build one publish or play endpoint: the outcome of the SDP
/// negotiation and the ICE/DTLS credentials, as plain values that cross to the worker.
public struct TrackParameters: Sendable, Equatable {
    public var kind: MediaKind
    public var mid: String
    /// Codec name as negotiated ("VP8", "H264", "opus", ...).
    public var codecName: String
    /// The codec's fmtp line, so a player can be offered exactly the publisher's codec.
    public var fmtp: String
    public var payloadType: UInt8
    public var rtxPayloadType: UInt8?
    public var clockRate: UInt32
    public var extensions: ExtensionIDs
    /// SSRCs the remote side announced for this track (a=ssrc), primary streams only.
    public var remoteSSRCs: [UInt32]
    /// RTX SSRCs the remote side announced (FID groups).
    public var remoteRTXSSRCs: [UInt32]
    /// The server's SSRC for what it sends on this track (play).
    public var localSSRC: UInt32
    /// The server's RTX SSRC for retransmissions (play, when the player negotiated RTX).
    public var localRTXSSRC: UInt32?
    public var feedback: Feedback
    /// Publish with simulcast: the layers in offer order, by rid or by SSRC (a=ssrc-group:SIM).
    public var simulcast: [SimulcastLayerParameters] = []

    public struct Feedback: Sendable, Equatable {
        public var nack = false
        public var pli = false
        public var fir = false
        public var remb = false
        public var transportCC = false

        public init(nack: Bool = false, pli: Bool = false, fir: Bool = false, remb: Bool = false, transportCC: Bool = false) {
            self.nack = nack
            self.pli = pli
            self.fir = fir
            self.remb = remb
            self.transportCC = transportCC
        }
    }

    public init(kind: MediaKind, mid: String, codecName: String, fmtp: String, payloadType: UInt8, rtxPayloadType: UInt8?,
                clockRate: UInt32, extensions: ExtensionIDs, remoteSSRCs: [UInt32], remoteRTXSSRCs: [UInt32],
                localSSRC: UInt32, feedback: Feedback) {
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

public struct SimulcastLayerParameters: Sendable, Equatable {
    public var rid: String?
    public var ssrc: UInt32?
    public var rtxSSRC: UInt32?

    public init(rid: String?, ssrc: UInt32?, rtxSSRC: UInt32? = nil) {
        self.rid = rid
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
    }
}

/// Negotiated RTP header extension ids (RFC 8285); nil when not negotiated.
public struct ExtensionIDs: Sendable, Equatable {
    public var mid: UInt8?
    public var rid: UInt8?
    public var repairedRid: UInt8?
    public var absSendTime: UInt8?
    public var transportCC: UInt8?
    public var audioLevel: UInt8?

    public init(mid: UInt8? = nil, rid: UInt8? = nil, repairedRid: UInt8? = nil, absSendTime: UInt8? = nil,
                transportCC: UInt8? = nil, audioLevel: UInt8? = nil) {
        self.mid = mid
        self.rid = rid
        self.repairedRid = repairedRid
        self.absSendTime = absSendTime
        self.transportCC = transportCC
        self.audioLevel = audioLevel
    }
}

public struct EndpointParameters: Sendable {
    public var handle: StreamHandle
    public var stream: String
    public var role: StreamRole
    public var audio: TrackParameters?
    public var video: TrackParameters?
    /// ICE credentials, the peer's fingerprint and the DTLS role, as the transport takes them.
    public var transport: TransportParameters
}
