import SluiceVocabulary

/// Answers a client's offer for an ICE-lite SFU: Unified Plan, BUNDLE, rtcp-mux, one audio
/// and one video m-line at most, the client always offering.
///
/// An m-line Sluice cannot use is answered with port 0 (its mid kept); only when no audio or
/// video m-line is left does negotiation fail with `SDPError.noCommonCodecs`.
public struct SDPNegotiator: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// Video codecs by preference; known rules for VP8, H264, VP9, AV1, other names match by name.
        public var videoCodecs: [String]
        public var audioCodecs: [String]
        public var maxSimulcastLayers: Int
        /// Accept one `webrtc-datachannel` m-line (reported in `NegotiatedSession.dataChannel`).
        public var acceptsDataChannel: Bool
        public var sctpPort: Int
        public var maxMessageSize: Int
        /// Keep transport-wide congestion control in play answers, so the server estimates a
        /// player's bandwidth from its feedback (players without it send REMB instead).
        public var transportCCForPlay = true

        public init(videoCodecs: [String] = ["VP8", "H264", "VP9", "AV1"], audioCodecs: [String] = ["opus"],
                    maxSimulcastLayers: Int = 3, acceptsDataChannel: Bool = true,
                    sctpPort: Int = 5000, maxMessageSize: Int = 262144) {
            self.videoCodecs = videoCodecs
            self.audioCodecs = audioCodecs
            self.maxSimulcastLayers = maxSimulcastLayers
            self.acceptsDataChannel = acceptsDataChannel
            self.sctpPort = sctpPort
            self.maxMessageSize = maxMessageSize
        }
    }

    public var configuration: Configuration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Parses `offerSDP`, then negotiates it.
    public func negotiate(offerSDP: String, parameters: AnswerParameters) throws -> SDPNegotiation {
        try negotiate(offer: SessionDescription(parsing: offerSDP), parameters: parameters)
    }

    public func negotiate(offer: SessionDescription, parameters: AnswerParameters) throws -> SDPNegotiation {
        let bundle = offer.bundleMids
        let bundleSet = Set(bundle)
        var decisions: [Decision] = []
        var sawMedia = false
        var sawRoleDirection = false
        var haveAudio = false, haveVideo = false, haveData = false

        for (index, section) in offer.media.enumerated() {
            let inBundle = section.mid.map { bundleSet.contains($0) } ?? false
            let offeredPort = section.port != 0 || section.bundleOnly || inBundle
            let isMedia = section.kind == .audio || section.kind == .video
            if isMedia { sawMedia = true }
            guard offeredPort else { decisions.append(.rejected); continue }
            if isMedia, section.mid == nil { throw SDPError.missingMid(mediaIndex: index) }
            guard bundle.isEmpty || inBundle else { decisions.append(.rejected); continue }

            if section.kind == .application {
                if configuration.acceptsDataChannel, !haveData, section.mid != nil,
                   section.formats.contains("webrtc-datachannel"), section.proto.uppercased().hasSuffix("DTLS/SCTP") {
                    haveData = true
                    decisions.append(.dataChannel)
                } else {
                    decisions.append(.rejected)
                }
                continue
            }
            guard isMedia, section.isRTP, section.proto.uppercased().contains("SAVP") else {
                decisions.append(.rejected)
                continue
            }
            let direction = section.direction ?? offer.direction ?? .sendrecv
            let fits = parameters.role == .publish ? direction.sends : direction.receives
            guard fits else { decisions.append(.rejected); continue }
            sawRoleDirection = true
            if section.kind == .audio ? haveAudio : haveVideo { decisions.append(.rejected); continue }
            guard let choice = chooseCodecs(section, parameters: parameters) else {
                decisions.append(.rejected)
                continue
            }
            if section.kind == .audio { haveAudio = true } else { haveVideo = true }
            decisions.append(.media(choice))
        }

        guard sawMedia else { throw SDPError.noMediaSections }
        guard sawRoleDirection else { throw SDPError.directionMismatch(role: parameters.role) }
        guard haveAudio || haveVideo else { throw SDPError.noCommonCodecs }

        let accepted = zip(offer.media, decisions).filter { $0.1.isAccepted }.map { $0.0 }
        if bundle.isEmpty, accepted.count > 1 { throw SDPError.bundleRequired }
        let transport = try remoteTransport(offer, accepted: accepted)
        for section in accepted where section.isRTP && !section.rtcpMux && section.port != 0 && !section.bundleOnly {
            throw SDPError.missingRTCPMux(mid: section.mid ?? "")
        }

        let builder = AnswerBuilder(offer: offer, parameters: parameters, configuration: configuration,
                                    answerSetup: transport.dtlsRole == .server ? .passive : .active)
        var session = NegotiatedSession(role: parameters.role, remoteICEUfrag: transport.ufrag,
                                        remoteICEPwd: transport.pwd, remoteFingerprint: transport.fingerprint,
                                        dtlsRole: transport.dtlsRole, bundleMids: [])
        var answerMedia: [MediaDescription] = []
        for (section, decision) in zip(offer.media, decisions) {
            switch decision {
            case .rejected:
                answerMedia.append(builder.rejected(section))
                if let mid = section.mid { session.rejectedMids.append(mid) }
            case .dataChannel:
                let (answer, negotiated) = builder.dataChannel(section)
                answerMedia.append(answer)
                session.dataChannel = negotiated
                session.bundleMids.append(negotiated.mid)
            case .media(let choice):
                let (answer, negotiated) = builder.media(section, choice: choice)
                answerMedia.append(answer)
                if section.kind == .audio { session.audio = negotiated } else { session.video = negotiated }
                session.bundleMids.append(negotiated.mid)
            }
        }
        var answer = builder.session(bundleMids: bundle.isEmpty ? nil : session.bundleMids)
        answer.media = answerMedia
        return SDPNegotiation(answer: answer, answerSDP: answer.serialized(), session: session)
    }

    enum Decision {
        case rejected
        case dataChannel
        case media(CodecChoice)

        var isAccepted: Bool {
            if case .rejected = self { return false }
            return true
        }
    }

    struct CodecChoice {
        var codec: CodecDescription
        var rtx: CodecDescription?
        /// Opus RED (RFC 2198), when the offer has it for the chosen Opus and `AnswerParameters.red`.
        var red: CodecDescription?
    }

    private func chooseCodecs(_ section: MediaDescription, parameters: AnswerParameters) -> CodecChoice? {
        let isAudio = section.kind == .audio
        let selector = CodecSelector(preference: isAudio ? configuration.audioCodecs : configuration.videoCodecs)
        var publisher: NegotiatedCodec?
        if parameters.role == .play, let codecs = parameters.publisherCodecs {
            guard let codec = isAudio ? codecs.audio : codecs.video else { return nil }
            publisher = codec
        }
        guard let codec = selector.choose(from: section.codecs, publisher: publisher) else { return nil }
        let rtx = isAudio ? nil : CodecSelector.rtx(for: codec.payloadType, in: section.codecs)
        let red = isAudio && parameters.red ? CodecSelector.red(for: codec, in: section.codecs) : nil
        return CodecChoice(codec: codec, rtx: rtx, red: red)
    }

    private struct RemoteTransport {
        var ufrag: String
        var pwd: String
        var fingerprint: Fingerprint
        var dtlsRole: DTLSRole
    }

    /// ICE and DTLS parameters come from the BUNDLE tag (its first mid), else the session
    /// level, else any accepted m-line: bundle-only m-lines may legitimately omit them.
    private func remoteTransport(_ offer: SessionDescription, accepted: [MediaDescription]) throws -> RemoteTransport {
        let tag = offer.bundleMids.first.flatMap { mid in offer.media.first { $0.mid == mid } }
        let sections = (tag.map { [$0] } ?? []) + accepted

        var credentials: (String, String)?
        if let tag, let u = tag.iceUfrag, let p = tag.icePwd { credentials = (u, p) }
        if credentials == nil, let u = offer.iceUfrag, let p = offer.icePwd { credentials = (u, p) }
        if credentials == nil, let s = accepted.first(where: { $0.iceUfrag != nil && $0.icePwd != nil }),
           let u = s.iceUfrag, let p = s.icePwd { credentials = (u, p) }
        guard let (ufrag, pwd) = credentials else { throw SDPError.missingICECredentials }

        let fingerprints = tag.map(\.fingerprints).flatMap { $0.isEmpty ? nil : $0 }
            ?? (offer.fingerprints.isEmpty ? nil : offer.fingerprints)
            ?? accepted.first { !$0.fingerprints.isEmpty }?.fingerprints ?? []
        guard let fingerprint = fingerprints.first(where: { $0.algorithm.lowercased() == "sha-256" }) ?? fingerprints.first else {
            throw SDPError.missingFingerprint
        }

        let setup = sections.lazy.compactMap(\.setup).first ?? offer.setup ?? .actpass
        let role: DTLSRole
        switch setup {
        case .actpass, .active: role = .server
        case .passive: role = .client
        case .holdconn: throw SDPError.unsupportedDTLSSetup(setup.rawValue)
        }
        return RemoteTransport(ufrag: ufrag, pwd: pwd, fingerprint: fingerprint, dtlsRole: role)
    }
}
