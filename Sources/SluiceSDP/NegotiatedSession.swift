import SluiceVocabulary

/// The codec chosen for one m-line, with the payload type the client uses for it.
public struct NegotiatedCodec: Sendable, Hashable {
    public var name: String
    public var payloadType: Int
    public var clockRate: Int
    public var channels: Int?
    /// The answer's a=fmtp value ("" when none), e.g. `level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f`.
    public var fmtp: String

    public init(name: String, payloadType: Int, clockRate: Int, channels: Int? = nil, fmtp: String = "") {
        self.name = name
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.channels = channels
        self.fmtp = fmtp
    }

    public var parameters: [FormatParameter] { SDPParser.parameters(fmtp) }

    public func hasName(_ other: String) -> Bool { name.lowercased() == other.lowercased() }
}

/// A stream the client announced with a=ssrc lines: primary SSRC and its RTX (ssrc-group FID).
public struct RemoteSSRC: Sendable, Hashable {
    public var ssrc: UInt32
    public var rtxSSRC: UInt32?
    public var cname: String?

    public init(ssrc: UInt32, rtxSSRC: UInt32? = nil, cname: String? = nil) {
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.cname = cname
    }
}

/// The server's own sending SSRCs for one play m-line.
public struct LocalSSRCs: Sendable, Hashable {
    public var ssrc: UInt32
    public var rtxSSRC: UInt32?

    public init(ssrc: UInt32, rtxSSRC: UInt32? = nil) {
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
    }
}

/// What was agreed for one accepted audio or video m-line.
public struct NegotiatedMedia: Sendable, Hashable {
    public var kind: MediaKind
    public var mid: String
    /// The answer's direction: recvonly for publish, sendonly for play.
    public var direction: MediaDirection
    public var codec: NegotiatedCodec
    public var rtxPayloadType: Int?
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
                rtxPayloadType: Int? = nil, feedback: RTCPFeedbackSet = .init(),
                extensions: NegotiatedExtensions = .init(), rtcpReducedSize: Bool = false,
                remoteSSRCs: [RemoteSSRC] = [], simulcastLayers: [SimulcastLayer] = [],
                localSSRCs: LocalSSRCs? = nil, maxBitrate: Int? = nil) {
        self.kind = kind
        self.mid = mid
        self.direction = direction
        self.codec = codec
        self.rtxPayloadType = rtxPayloadType
        self.feedback = feedback
        self.extensions = extensions
        self.rtcpReducedSize = rtcpReducedSize
        self.remoteSSRCs = remoteSSRCs
        self.simulcastLayers = simulcastLayers
        self.localSSRCs = localSSRCs
        self.maxBitrate = maxBitrate
    }
}

/// An accepted `m=application ... webrtc-datachannel` section.
public struct NegotiatedDataChannel: Sendable, Hashable {
    public var mid: String
    /// The client's a=sctp-port (5000 when absent).
    public var remoteSCTPPort: Int
    public var remoteMaxMessageSize: Int?
    /// What the answer announced for the server.
    public var localSCTPPort: Int
    public var localMaxMessageSize: Int

    public init(mid: String, remoteSCTPPort: Int, remoteMaxMessageSize: Int?, localSCTPPort: Int, localMaxMessageSize: Int) {
        self.mid = mid
        self.remoteSCTPPort = remoteSCTPPort
        self.remoteMaxMessageSize = remoteMaxMessageSize
        self.localSCTPPort = localSCTPPort
        self.localMaxMessageSize = localMaxMessageSize
    }
}

/// Everything the media core needs from an offer/answer exchange.
public struct NegotiatedSession: Sendable, Hashable {
    public var role: StreamRole
    public var remoteICEUfrag: String
    public var remoteICEPwd: String
    public var remoteFingerprint: Fingerprint
    public var dtlsRole: DTLSRole
    /// The answer's BUNDLE group: every accepted mid, offer order.
    public var bundleMids: [String]
    public var audio: NegotiatedMedia?
    public var video: NegotiatedMedia?
    public var dataChannel: NegotiatedDataChannel?
    /// Mids of m-lines answered with port 0.
    public var rejectedMids: [String]

    public init(role: StreamRole, remoteICEUfrag: String, remoteICEPwd: String, remoteFingerprint: Fingerprint,
                dtlsRole: DTLSRole, bundleMids: [String], audio: NegotiatedMedia? = nil,
                video: NegotiatedMedia? = nil, dataChannel: NegotiatedDataChannel? = nil, rejectedMids: [String] = []) {
        self.role = role
        self.remoteICEUfrag = remoteICEUfrag
        self.remoteICEPwd = remoteICEPwd
        self.remoteFingerprint = remoteFingerprint
        self.dtlsRole = dtlsRole
        self.bundleMids = bundleMids
        self.audio = audio
        self.video = video
        self.dataChannel = dataChannel
        self.rejectedMids = rejectedMids
    }
}
