import SluiceSDP

/// The SDP offer a Sluice client makes for one PeerConnection (docs/protocol.md: the client always
/// offers): BUNDLE, rtcp-mux, VP8 (PT 96) and Opus (PT 111), mid, abs-send-time and
/// transport-cc extensions, `a=setup:active` (the client is the DTLS client), and `a=ssrc`
/// lines for what it sends.
public struct ClientOffer: Sendable {
    public static let opusPayloadType = 111
    public static let vp8PayloadType = 96
    public static let midExtensionID: UInt8 = 1
    public static let absSendTimeExtensionID: UInt8 = 2
    public static let transportCCExtensionID: UInt8 = 3
    public static let dependencyDescriptorExtensionID: UInt8 = 4
    public static let dependencyDescriptorURI =
        "https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension"
    public static let audioMid = "0"
    public static let videoMid = "1"
    /// Opus in RED (RFC 2198), offered after Opus when `audioRED`.
    public static let redPayloadType = 63

    public var role: StreamRole
    public var audio: Bool
    public var video: Bool
    public var iceUfrag: String
    public var icePassword: String
    /// "sha-256" fingerprint of the client's DTLS certificate.
    public var fingerprint: String
    /// What the publisher sends on; ignored for play.
    public var audioSSRC: UInt32
    public var videoSSRC: UInt32
    /// Publish with SSRC simulcast: one SSRC per layer, lowest first (announced with
    /// a=ssrc-group:SIM); empty for none. `videoSSRC` is ignored then.
    public var simulcastSSRCs: [UInt32]
    public var cname: String
    /// The client's own host candidate, when known (ICE-lite servers learn it from checks anyway).
    public var candidate: (ip: String, port: Int)?
    /// Offers `red/48000/2` over Opus (`111/111`), as Chromium does.
    public var audioRED = false
    /// Offers the dependency descriptor on video (and `a=extmap-allow-mixed`: a descriptor
    /// that brings its structure needs the two-byte header form).
    public var dependencyDescriptor = false

    public init(role: StreamRole, audio: Bool = true, video: Bool = true, iceUfrag: String, icePassword: String,
                fingerprint: String, audioSSRC: UInt32 = 0, videoSSRC: UInt32 = 0, simulcastSSRCs: [UInt32] = [],
                cname: String = "sluice-client", candidate: (ip: String, port: Int)? = nil) {
        self.role = role
        self.audio = audio
        self.video = video
        self.iceUfrag = iceUfrag
        self.icePassword = icePassword
        self.fingerprint = fingerprint
        self.audioSSRC = audioSSRC
        self.videoSSRC = videoSSRC
        self.simulcastSSRCs = simulcastSSRCs
        self.cname = cname
        self.candidate = candidate
    }

    public var sessionDescription: SessionDescription {
        var media: [MediaDescription] = []
        if audio { media.append(section(kind: .audio)) }
        if video { media.append(section(kind: .video)) }
        var description = SessionDescription(origin: .init(sessionID: String(UInt32.random(in: 1...UInt32.max))),
                                             groups: [MediaGroup(semantics: "BUNDLE", mids: media.compactMap(\.mid))],
                                             msidSemantic: MsidSemantic(semantics: "WMS",
                                                                        identifiers: role == .publish ? [cname] : []),
                                             media: media)
        description.extmapAllowMixed = dependencyDescriptor
        return description
    }

    public var sdp: String { sessionDescription.serialized() }

    private func section(kind: SDPMediaType) -> MediaDescription {
        let isAudio = kind == .audio
        let codec = isAudio
            ? CodecDescription(payloadType: Self.opusPayloadType, name: "opus", clockRate: 48000, channels: 2,
                               parameters: [FormatParameter(name: "minptime", value: "10"),
                                            FormatParameter(name: "useinbandfec", value: "1")],
                               feedback: [RTCPFeedback(type: "transport-cc")])
            : CodecDescription(payloadType: Self.vp8PayloadType, name: "VP8", clockRate: 90000,
                               feedback: [RTCPFeedback(type: "goog-remb"), RTCPFeedback(type: "transport-cc"),
                                          RTCPFeedback(type: "ccm", parameter: "fir"), RTCPFeedback(type: "nack"),
                                          RTCPFeedback(type: "nack", parameter: "pli")])
        var codecs = [codec]
        if isAudio && audioRED {
            codecs.append(CodecDescription(payloadType: Self.redPayloadType, name: "red", clockRate: 48000, channels: 2,
                                           parameters: [FormatParameter(name: "\(Self.opusPayloadType)/\(Self.opusPayloadType)")]))
        }
        var m = MediaDescription(kind: kind, port: candidate?.port ?? 9, formats: codecs.map { String($0.payloadType) },
                                 connection: ConnectionData(address: candidate?.ip ?? "0.0.0.0"),
                                 mid: isAudio ? Self.audioMid : Self.videoMid,
                                 direction: role == .publish ? .sendonly : .recvonly,
                                 rtcp: "9 IN IP4 0.0.0.0", rtcpMux: true, rtcpRsize: true,
                                 iceUfrag: iceUfrag, icePwd: icePassword,
                                 fingerprints: [Fingerprint(algorithm: "sha-256", value: fingerprint)],
                                 setup: .active, codecs: codecs)
        m.extensionMaps = [ExtensionMap(id: Int(Self.midExtensionID), uri: "urn:ietf:params:rtp-hdrext:sdes:mid"),
                           ExtensionMap(id: Int(Self.absSendTimeExtensionID),
                                        uri: "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"),
                           ExtensionMap(id: Int(Self.transportCCExtensionID),
                                        uri: "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01")]
        if !isAudio && dependencyDescriptor {
            m.extensionMaps.append(ExtensionMap(id: Int(Self.dependencyDescriptorExtensionID), uri: Self.dependencyDescriptorURI))
        }
        if let candidate {
            m.candidates = ["1 1 udp 2130706431 \(candidate.ip) \(candidate.port) typ host"]
            m.endOfCandidates = true
        }
        if role == .publish {
            let ssrcs = isAudio ? [audioSSRC] : simulcastSSRCs.isEmpty ? [videoSSRC] : simulcastSSRCs
            m.msids = [MediaStreamID(streamID: cname, trackID: isAudio ? "audio" : "video")]
            m.ssrcs = ssrcs.map { SSRCDescription(ssrc: $0, attributes: [SDPAttribute(name: "cname", value: cname)]) }
            if !isAudio && simulcastSSRCs.count > 1 {
                m.ssrcGroups = [SSRCGroup(semantics: "SIM", ssrcs: simulcastSSRCs)]
            }
        }
        return m
    }
}
