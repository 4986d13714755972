import SluiceVocabulary

/// Writes the answer's m-sections and session level for `SDPNegotiator`.
struct AnswerBuilder {
    let offer: SessionDescription
    let parameters: AnswerParameters
    let configuration: SDPNegotiator.Configuration
    let answerSetup: DTLSSetup

    /// The m= port and c= address: the first candidate's, so that stacks which ignore
    /// a=candidate still find the server.
    private var address: (port: Int, connection: ConnectionData) {
        guard let first = parameters.candidates.first else { return (9, ConnectionData()) }
        let ipv6 = first.ip.contains(":")
        return (first.port, ConnectionData(addressType: ipv6 ? "IP6" : "IP4", address: first.ip))
    }

    func session(bundleMids: [String]?) -> SessionDescription {
        var answer = SessionDescription(origin: .init(sessionID: String(parameters.sessionID)))
        if let bundleMids { answer.groups = [MediaGroup(semantics: "BUNDLE", mids: bundleMids)] }
        let sends = parameters.role == .play ? parameters.localAudio != nil || parameters.localVideo != nil
            : parameters.returnVideo != nil
        let streams = sends ? [parameters.localStreamID] : []
        answer.msidSemantic = MsidSemantic(semantics: "WMS", identifiers: streams)
        answer.iceLite = true
        // Both forms of header extension (RFC 8285): a dependency descriptor that carries its
        // structure is longer than the one-byte form's 16 bytes, and a sender told nothing of
        // the two-byte form leaves such a descriptor out (then no player could decode).
        answer.extmapAllowMixed = offer.extmapAllowMixed
        return answer
    }

    func rejected(_ offered: MediaDescription) -> MediaDescription {
        var m = MediaDescription(kind: offered.kind, port: 0, proto: offered.proto,
                                 formats: Array(offered.formats.prefix(1)), connection: ConnectionData(),
                                 mid: offered.mid)
        if offered.isRTP { m.direction = .inactive }
        return m
    }

    /// ICE, DTLS and candidates, the same in every accepted m-line.
    private func transportSection(kind: SDPMediaType, proto: String, formats: [String], mid: String) -> MediaDescription {
        var m = MediaDescription(kind: kind, port: address.port, proto: proto, formats: formats,
                                 connection: address.connection, mid: mid)
        m.iceUfrag = parameters.iceUfrag
        m.icePwd = parameters.icePwd
        m.fingerprints = [Fingerprint(algorithm: "sha-256", value: parameters.fingerprint)]
        m.setup = answerSetup
        m.candidates = candidateLines()
        m.endOfCandidates = true
        return m
    }

    /// Host candidates with `CandidatePriority`'s priorities: UDP first in preference, passive
    /// TCP (ICE-TCP, RFC 6544) below every UDP one. Each line has a foundation of its own.
    private func candidateLines() -> [String] {
        var udpIndex = 0
        var tcpIndex = 0
        return parameters.candidates.enumerated().map { index, c in
            let transport = c.transport.lowercased()
            if transport == "tcp" {
                defer { tcpIndex += 1 }
                let priority = CandidatePriority.tcpPassiveHost(index: tcpIndex)
                return "\(index + 1) 1 tcp \(priority) \(c.ip) \(c.port) typ host tcptype passive"
            }
            defer { udpIndex += 1 }
            return "\(index + 1) 1 \(transport) \(CandidatePriority.udpHost(index: udpIndex)) \(c.ip) \(c.port) typ host"
        }
    }

    func dataChannel(_ offered: MediaDescription) -> (MediaDescription, NegotiatedDataChannel) {
        let mid = offered.mid ?? ""
        var m = transportSection(kind: .application, proto: offered.proto, formats: ["webrtc-datachannel"], mid: mid)
        m.sctpPort = configuration.sctpPort
        m.maxMessageSize = configuration.maxMessageSize
        let negotiated = NegotiatedDataChannel(mid: mid, remoteSCTPPort: offered.sctpPort ?? 5000,
                                               remoteMaxMessageSize: offered.maxMessageSize,
                                               localSCTPPort: configuration.sctpPort,
                                               localMaxMessageSize: configuration.maxMessageSize)
        return (m, negotiated)
    }

    func media(_ offered: MediaDescription, choice: SDPNegotiator.CodecChoice) -> (MediaDescription, NegotiatedMedia) {
        let mid = offered.mid ?? ""
        let isAudio = offered.kind == .audio
        // Players give transport-wide feedback (the server estimates their bandwidth) unless
        // the server is configured to take only their REMB.
        let dropTransportCC = parameters.role == .play && !configuration.transportCCForPlay
        var chosenCodec = choice.codec
        var chosenRTX = choice.rtx
        if dropTransportCC {
            chosenCodec.feedback.removeAll { $0.type == "transport-cc" }
            chosenRTX?.feedback.removeAll { $0.type == "transport-cc" }
        }
        // The start bitrate goes into the answer's line only: the negotiated codec (what players
        // of this stream are matched against and told) keeps the offer's own parameters.
        var writtenCodec = chosenCodec
        if parameters.role == .publish, !isAudio, let kbps = parameters.videoStartBitrateKbps, kbps > 0 {
            writtenCodec.parameters = Self.withStartBitrate(kbps, chosenCodec.parameters)
        }
        // RED first for a publisher: a sender sends the answer's first codec, and libwebrtc
        // sends Opus in RED when RED comes first. A player (the server sends) lists it after Opus.
        var codecs = [writtenCodec] + (chosenRTX.map { [$0] } ?? [])
        if let red = choice.red { codecs.insert(red, at: parameters.role == .publish ? 0 : 1) }
        var m = transportSection(kind: offered.kind, proto: offered.proto,
                                 formats: codecs.map { String($0.payloadType) }, mid: mid)
        var direction: MediaDirection = parameters.role == .publish ? .recvonly : .sendonly
        m.rtcp = "9 IN IP4 0.0.0.0"
        m.rtcpMux = true
        m.rtcpRsize = offered.rtcpRsize
        m.codecs = codecs
        m.extensionMaps = CodecSelector.extensions(offered.extensionMaps + offer.extensionMaps)
        if dropTransportCC { m.extensionMaps.removeAll { $0.uri == CodecSelector.transportCCURI } }
        if isAudio { m.extensionMaps.removeAll { $0.uri == CodecSelector.dependencyDescriptorURI } }

        let kbps = isAudio ? parameters.audioBitrateKbps : parameters.videoBitrateKbps
        var maxBitrate: Int?
        if let kbps, kbps > 0, kbps <= Int(Int32.max) / 1000 {
            m.bandwidths = [Bandwidth(type: "AS", value: kbps), Bandwidth(type: "TIAS", value: kbps * 1000)]
            maxBitrate = kbps * 1000
        }

        var layers: [SimulcastLayer] = []
        var localSSRCs: LocalSSRCs?
        switch parameters.role {
        case .publish:
            layers = simulcastLayers(offered)
            let rids = layers.compactMap { layer in layer.rid.map { SimulcastRID(id: $0, paused: layer.paused) } }
            if !rids.isEmpty {
                m.rids = rids.map { RIDDescription(id: $0.id, direction: .recv) }
                m.simulcast = SimulcastDescription(recv: rids.map { [$0] })
            }
            if !isAudio, let track = parameters.returnVideo,
               (offered.direction ?? offer.direction ?? .sendrecv).receives {
                direction = .sendrecv
                localSSRCs = LocalSSRCs(ssrc: track.ssrcs.ssrc, rtxSSRC: nil)
                m.msids = [MediaStreamID(streamID: parameters.localStreamID, trackID: track.trackID)]
                m.ssrcs = [SSRCDescription(ssrc: track.ssrcs.ssrc,
                                           attributes: [SDPAttribute(name: "cname", value: parameters.cname)])]
            }
        case .play:
            if let track = isAudio ? parameters.localAudio : parameters.localVideo {
                localSSRCs = track.ssrcs
                m.msids = [MediaStreamID(streamID: parameters.localStreamID, trackID: track.trackID)]
                let cname = SDPAttribute(name: "cname", value: parameters.cname)
                m.ssrcs = [SSRCDescription(ssrc: track.ssrcs.ssrc, attributes: [cname])]
                if choice.rtx != nil, let rtx = track.ssrcs.rtxSSRC {
                    m.ssrcGroups = [SSRCGroup(semantics: "FID", ssrcs: [track.ssrcs.ssrc, rtx])]
                    m.ssrcs.append(SSRCDescription(ssrc: rtx, attributes: [cname]))
                } else {
                    localSSRCs?.rtxSSRC = nil
                }
            }
        }

        m.direction = direction
        let codec = chosenCodec
        let negotiated = NegotiatedMedia(
            kind: isAudio ? .audio : .video, mid: mid, direction: direction,
            codec: NegotiatedCodec(name: codec.name, payloadType: codec.payloadType, clockRate: codec.clockRate,
                                   channels: codec.channels, fmtp: codec.parameters.formatted),
            rtxPayloadType: choice.rtx?.payloadType,
            redPayloadType: choice.red?.payloadType,
            feedback: CodecSelector.feedbackSet(codec.feedback),
            extensions: CodecSelector.extensionIDs(m.extensionMaps),
            rtcpReducedSize: offered.rtcpRsize,
            remoteSSRCs: remoteSSRCs(offered),
            simulcastLayers: layers,
            localSSRCs: localSSRCs,
            maxBitrate: maxBitrate)
        return (m, negotiated)
    }

    static let startBitrateParameter = "x-google-start-bitrate"

    /// `parameters` with `x-google-start-bitrate=<kbps>` last, replacing one the offer carried.
    /// libwebrtc reads it from the send codec's parameters, which for a publisher are the answer's.
    static func withStartBitrate(_ kbps: Int, _ parameters: [FormatParameter]) -> [FormatParameter] {
        var out = parameters.filter { $0.name.lowercased() != startBitrateParameter }
        out.append(FormatParameter(name: startBitrateParameter, value: String(kbps)))
        return out
    }

    private func remoteSSRCs(_ offered: MediaDescription) -> [RemoteSSRC] {
        var rtxOf: [UInt32: UInt32] = [:]
        for group in offered.ssrcGroups where group.semantics.uppercased() == "FID" && group.ssrcs.count >= 2 {
            if rtxOf[group.ssrcs[0]] == nil { rtxOf[group.ssrcs[0]] = group.ssrcs[1] }
        }
        let repairs = Set(rtxOf.values)
        return offered.ssrcs.filter { !repairs.contains($0.ssrc) }.map {
            RemoteSSRC(ssrc: $0.ssrc, rtxSSRC: rtxOf[$0.ssrc], cname: $0.cname)
        }
    }

    /// rid layers from a=simulcast send (first alternative of each stream, declared by a=rid
    /// send when any a=rid exists), else SSRC layers from a=ssrc-group:SIM.
    private func simulcastLayers(_ offered: MediaDescription) -> [SimulcastLayer] {
        let limit = max(0, configuration.maxSimulcastLayers)
        if let streams = offered.simulcast?.send, !streams.isEmpty {
            let declared = Set(offered.rids.filter { $0.direction == .send }.map(\.id))
            var layers: [SimulcastLayer] = []
            for alternatives in streams {
                guard let pick = alternatives.first(where: { offered.rids.isEmpty || declared.contains($0.id) }),
                      !layers.contains(where: { $0.rid == pick.id }) else { continue }
                layers.append(SimulcastLayer(rid: pick.id, paused: pick.paused))
            }
            return Array(layers.prefix(limit))
        }
        if let group = offered.ssrcGroups.first(where: { $0.semantics.uppercased() == "SIM" }) {
            var seen = Set<UInt32>()
            let ssrcs = group.ssrcs.filter { seen.insert($0).inserted }
            return ssrcs.prefix(limit).map { SimulcastLayer(ssrc: $0, rtxSSRC: offered.rtxSSRC(for: $0)) }
        }
        return []
    }
}
