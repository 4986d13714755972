import SluiceVocabulary

/// A host candidate of the server, written into every accepted m-line of the answer.
public struct ServerCandidate: Sendable, Hashable {
    public var ip: String
    public var port: Int
    /// "udp" (or "tcp", written as a passive TCP candidate).
    public var transport: String

    public init(ip: String, port: Int, transport: String = "udp") {
        self.ip = ip
        self.port = port
        self.transport = transport
    }
}

/// A track the server sends to a player: its SSRCs and the msid track id.
public struct LocalTrack: Sendable, Hashable {
    public var ssrcs: LocalSSRCs
    public var trackID: String

    public init(ssrc: UInt32, rtxSSRC: UInt32? = nil, trackID: String) {
        self.ssrcs = LocalSSRCs(ssrc: ssrc, rtxSSRC: rtxSSRC)
        self.trackID = trackID
    }
}

/// The codecs a publisher negotiated; a player must get the same ones (Sluice never transcodes).
public struct PublisherCodecs: Sendable, Hashable {
    public var audio: NegotiatedCodec?
    public var video: NegotiatedCodec?

    public init(audio: NegotiatedCodec?, video: NegotiatedCodec?) {
        self.audio = audio
        self.video = video
    }

    public init(_ session: NegotiatedSession) {
        self.init(audio: session.audio?.codec, video: session.video?.codec)
    }
}

/// Everything of the server's side that goes into one answer.
public struct AnswerParameters: Sendable, Hashable {
    public var role: StreamRole
    public var iceUfrag: String
    public var icePwd: String
    /// The server certificate's SHA-256 fingerprint, "AB:CD:...".
    public var fingerprint: String
    public var candidates: [ServerCandidate]
    /// Play only: restrict each kind to the publisher's codec. Nil: use the server's preference.
    public var publisherCodecs: PublisherCodecs?
    /// Play only: msid stream id and the tracks (SSRCs) the server sends from.
    public var localStreamID: String
    public var localAudio: LocalTrack?
    public var localVideo: LocalTrack?
    public var cname: String
    /// Caps written as b=AS and b=TIAS into the answer's m-lines (publish constraints).
    public var videoBitrateKbps: Int?
    public var audioBitrateKbps: Int?
    /// Publish only: written as `x-google-start-bitrate` (kbit/s) into the chosen video codec's
    /// a=fmtp, so that libwebrtc's encoder starts there instead of at its own 300 kbit/s.
    /// nil writes nothing (and keeps whatever the offer's fmtp said).
    public var videoStartBitrateKbps: Int?
    /// Publish only: a video track the server sends on too, when the offer's video m-line is
    /// sendrecv (the pre-call test's probe): that m-line is answered sendrecv with this SSRC.
    public var returnVideo: LocalTrack?
    /// Opus RED (`red/48000/2`, fmtp naming the Opus payload type) is answered when offered:
    /// first for a publisher, so that it sends RED; after Opus for a player, which then takes
    /// RED whenever its publisher sends it (docs/protocol.md, "Opus RED").
    public var red = false
    /// The o= line's session id.
    public var sessionID: UInt64

    public init(role: StreamRole, iceUfrag: String, icePwd: String, fingerprint: String,
                candidates: [ServerCandidate], publisherCodecs: PublisherCodecs? = nil,
                localStreamID: String = "sluice", localAudio: LocalTrack? = nil, localVideo: LocalTrack? = nil,
                cname: String = "sluice", videoBitrateKbps: Int? = nil, audioBitrateKbps: Int? = nil,
                videoStartBitrateKbps: Int? = nil,
                sessionID: UInt64 = UInt64.random(in: 1...UInt64(Int64.max))) {
        self.role = role
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.publisherCodecs = publisherCodecs
        self.localStreamID = localStreamID
        self.localAudio = localAudio
        self.localVideo = localVideo
        self.cname = cname
        self.videoBitrateKbps = videoBitrateKbps
        self.audioBitrateKbps = audioBitrateKbps
        self.videoStartBitrateKbps = videoStartBitrateKbps
        self.sessionID = sessionID
    }
}

/// The result of negotiating one offer.
public struct SDPNegotiation: Sendable, Hashable {
    public var answer: SessionDescription
    /// `answer.serialized()`: what goes back to the client.
    public var answerSDP: String
    public var session: NegotiatedSession
}
