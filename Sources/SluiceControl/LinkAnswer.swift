import SluiceVocabulary

/// The origin's answer to a `LinkRequest`: its ICE credentials, DTLS fingerprint and
/// candidate for the link (it is the ICE-lite, DTLS-server side, as for any player), and what
/// it will send: each kind's codec, header extension ids (the publisher's, passed through),
/// and SSRCs (video: one per simulcast layer, lowest first).
public struct LinkAnswer: Sendable, Equatable {
    public var link: String
    public var iceUfrag: String
    public var icePassword: String
    public var fingerprintAlgorithm: String
    public var fingerprint: String
    public var candidateIP: String
    public var candidatePort: Int
    public var audio: LinkTrack?
    public var video: LinkTrack?

    public init(link: String, iceUfrag: String, icePassword: String, fingerprintAlgorithm: String, fingerprint: String,
                candidateIP: String, candidatePort: Int, audio: LinkTrack?, video: LinkTrack?) {
        self.link = link
        self.iceUfrag = iceUfrag
        self.icePassword = icePassword
        self.fingerprintAlgorithm = fingerprintAlgorithm
        self.fingerprint = fingerprint
        self.candidateIP = candidateIP
        self.candidatePort = candidatePort
        self.audio = audio
        self.video = video
    }
}

/// One kind as a relay link carries it.
public struct LinkTrack: Sendable, Equatable {
    public var codec: StreamCodec
    public var extensions: NegotiatedExtensions
    /// Audio: one SSRC. Video: one per layer, lowest first.
    public var ssrcs: [UInt32]
    /// The publisher encrypts its frames end to end: the edge reads no more of them than the
    /// origin does.
    public var encrypted = false

    public init(codec: StreamCodec, extensions: NegotiatedExtensions, ssrcs: [UInt32], encrypted: Bool = false) {
        self.codec = codec
        self.extensions = extensions
        self.ssrcs = ssrcs
        self.encrypted = encrypted
    }
}
