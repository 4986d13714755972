import SluiceMedia
import SluiceSDP
import SluiceTransport
import SluiceVocabulary

/// Turns an offer into an answer and the endpoint parameters a worker builds from it.
/// Runs on the control thread; the SDP module does the negotiation itself.
struct Negotiation {
    let fingerprint: String

    func negotiate(offer: String, role: StreamRole, handle: StreamHandle, stream: String,
                   candidates: [ServerCandidate],
                   publisherTracks: (audio: TrackParameters?, video: TrackParameters?)?,
                   constraints: StreamConstraints,
                   videoStartBitrateKbps: Int? = nil,
                   acceptsDataChannel: Bool = true,
                   red: Bool = false,
                   consentTimeoutMicros: UInt64) throws(MediaError) -> (String, EndpointParameters, NegotiatedDataChannel?) {
        let (answer, parameters, session) = try run(
            offer: offer, role: role, handle: handle, stream: stream, candidates: candidates,
            publisherTracks: publisherTracks, constraints: constraints, videoStartBitrateKbps: videoStartBitrateKbps,
            acceptsDataChannel: acceptsDataChannel, red: red, returnVideo: false,
            consentTimeoutMicros: consentTimeoutMicros)
        return (answer, parameters, session.dataChannel)
    }

    /// A pre-call test's offer: answered as a publish, and a sendrecv video m-line gets the
    /// server's probe SSRC (msid stream `precall`). `probes`: the client receives the probe.
    func negotiatePrecall(offer: String, handle: StreamHandle, candidates: [ServerCandidate],
                          startBitrateKbps: Int, consentTimeoutMicros: UInt64)
        throws(MediaError) -> (answer: String, parameters: EndpointParameters, probes: Bool) {
        let (answer, parameters, session) = try run(
            offer: offer, role: .publish, handle: handle, stream: "precall", candidates: candidates,
            publisherTracks: nil, constraints: StreamConstraints(), videoStartBitrateKbps: startBitrateKbps,
            acceptsDataChannel: false, red: false, returnVideo: true, consentTimeoutMicros: consentTimeoutMicros)
        return (answer, parameters, session.video?.direction == .sendrecv)
    }

    private func run(offer: String, role: StreamRole, handle: StreamHandle, stream: String,
                     candidates: [ServerCandidate],
                     publisherTracks: (audio: TrackParameters?, video: TrackParameters?)?,
                     constraints: StreamConstraints, videoStartBitrateKbps: Int?, acceptsDataChannel: Bool,
                     red: Bool, returnVideo: Bool, consentTimeoutMicros: UInt64)
        throws(MediaError) -> (String, EndpointParameters, NegotiatedSession) {
        let localUfrag = RandomToken.make(length: 8)
        let localPassword = RandomToken.make(length: 24)
        let audioSSRC = UInt32.random(in: 1...UInt32.max)
        let videoSSRC = UInt32.random(in: 1...UInt32.max)
        var answerParameters = AnswerParameters(
            role: role, iceUfrag: localUfrag, icePwd: localPassword,
            fingerprint: fingerprint,
            candidates: candidates,
            localStreamID: stream,
            videoBitrateKbps: role == .publish ? constraints.video?.bitrateKbps ?? constraints.video?.maxBitrateKbps : nil,
            audioBitrateKbps: role == .publish ? constraints.audioBitrateKbps : nil,
            videoStartBitrateKbps: role == .publish ? videoStartBitrateKbps : nil)
        answerParameters.red = red
        if returnVideo { answerParameters.returnVideo = LocalTrack(ssrc: videoSSRC, trackID: "probe") }
        if role == .play {
            answerParameters.localAudio = LocalTrack(ssrc: audioSSRC, trackID: "audio")
            // The RTX SSRC is written only if the player offered RTX.
            answerParameters.localVideo = LocalTrack(ssrc: videoSSRC, rtxSSRC: UInt32.random(in: 1...UInt32.max),
                                                     trackID: "video")
            if let publisherTracks {
                answerParameters.publisherCodecs = PublisherCodecs(audio: publisherTracks.audio.map(Self.codec),
                                                                   video: publisherTracks.video.map(Self.codec))
            }
        }
        let answer: String
        let session: NegotiatedSession
        do {
            let negotiator = SDPNegotiator(configuration: .init(acceptsDataChannel: acceptsDataChannel))
            let negotiation = try negotiator.negotiate(offerSDP: offer, parameters: answerParameters)
            answer = negotiation.answerSDP
            session = negotiation.session
        } catch let error as SDPError {
            throw Self.mediaError(error)
        } catch {
            throw .badSDP("Malformed SDP: \(error)")
        }
        let parameters = EndpointParameters(
            handle: handle, stream: stream, role: role,
            audio: session.audio.map { Self.track($0, kind: .audio, localSSRC: audioSSRC) },
            video: session.video.map { Self.track($0, kind: .video, localSSRC: videoSSRC) },
            transport: TransportParameters(
                localUfrag: localUfrag, localPassword: localPassword,
                remoteUfrag: session.remoteICEUfrag, remotePassword: session.remoteICEPwd,
                remoteFingerprintAlgorithm: session.remoteFingerprint.algorithm,
                remoteFingerprint: session.remoteFingerprint.value,
                dtlsRole: session.dtlsRole,
                consentTimeoutMicros: consentTimeoutMicros))
        return (answer, parameters, session)
    }

    private static func codec(_ track: TrackParameters) -> NegotiatedCodec {
        NegotiatedCodec(name: track.codecName, payloadType: Int(track.payloadType), clockRate: Int(track.clockRate),
                        channels: track.kind == .audio ? 2 : nil, fmtp: track.fmtp)
    }

    private static func track(_ media: NegotiatedMedia, kind: MediaKind, localSSRC: UInt32) -> TrackParameters {
        var track = TrackParameters(
            kind: kind, mid: media.mid, codecName: media.codec.name, fmtp: media.codec.fmtp,
            payloadType: UInt8(truncatingIfNeeded: media.codec.payloadType),
            rtxPayloadType: media.rtxPayloadType.map { UInt8(truncatingIfNeeded: $0) },
            clockRate: UInt32(max(1, media.codec.clockRate)),
            // Ids are 1...255 already: SDP keeps only those (NegotiatedExtensions.id).
            extensions: media.extensions,
            remoteSSRCs: media.remoteSSRCs.map(\.ssrc),
            remoteRTXSSRCs: media.remoteSSRCs.compactMap(\.rtxSSRC),
            localSSRC: media.localSSRCs?.ssrc ?? localSSRC,
            feedback: media.feedback)
        track.localRTXSSRC = media.localSSRCs?.rtxSSRC
        track.redPayloadType = media.redPayloadType.map { UInt8(truncatingIfNeeded: $0) }
        track.simulcast = media.simulcastLayers.filter { !$0.paused }
        return track
    }

    private static func mediaError(_ error: SDPError) -> MediaError {
        if case .noCommonCodecs = error { return .noCommonCodecs }
        return .badSDP(error.description)
    }
}
