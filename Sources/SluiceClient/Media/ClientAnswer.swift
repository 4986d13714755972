import SluiceSDP

/// The answer a client gives when the server makes the offer (Janus's VideoRoom offers to its
/// subscribers): every offered audio m-line with Opus and video m-line with VP8 is accepted
/// with the same mid and payload type, in the reverse direction, with rtcp-mux, the client's
/// ICE credentials, fingerprint and host candidate, and `a=setup:active` (the client is the
/// DTLS client); any other m-line is rejected with port 0. Only the mid header extension is
/// kept.
public struct ClientAnswer: Sendable {
    /// Payload types chosen per kind; nil where that kind was not accepted.
    public private(set) var audioPayloadType: UInt8?
    public private(set) var videoPayloadType: UInt8?
    public let sessionDescription: SessionDescription

    public enum AnswerError: Error, Equatable, Sendable, CustomStringConvertible {
        case nothingToAccept

        public var description: String { "the offer has no Opus audio or VP8 video this client can take" }
    }

    public init(offer: SessionDescription, iceUfrag: String, icePassword: String, fingerprint: String,
                candidate: (ip: String, port: Int)?) throws {
        var media: [MediaDescription] = []
        var audioPT: UInt8?
        var videoPT: UInt8?
        for offered in offer.media {
            let wanted = offered.kind == .audio ? "opus" : offered.kind == .video ? "VP8" : nil
            let codec = wanted.flatMap { name in offered.codecs.first { $0.hasName(name) } }
            let kindTaken = offered.kind == .audio ? audioPT != nil : videoPT != nil
            guard offered.isRTP, offered.port != 0 || offered.bundleOnly, var codec, !kindTaken,
                  let payloadType = UInt8(exactly: codec.payloadType), payloadType < 128 else {
                var rejected = MediaDescription(kind: offered.kind, port: 0, proto: offered.proto, formats: offered.formats,
                                                mid: offered.mid, direction: .inactive)
                rejected.connection = ConnectionData(address: "0.0.0.0")
                media.append(rejected)
                continue
            }
            // A player asks for key frames (PLI, FIR) and nothing else.
            codec.feedback = codec.feedback.filter {
                ($0.type == "nack" && $0.parameter == "pli") || ($0.type == "ccm" && $0.parameter == "fir")
            }
            if offered.kind == .audio { audioPT = payloadType } else { videoPT = payloadType }
            var m = MediaDescription(kind: offered.kind, port: candidate?.port ?? 9, formats: [String(payloadType)],
                                     connection: ConnectionData(address: candidate?.ip ?? "0.0.0.0"),
                                     mid: offered.mid, direction: (offered.direction ?? .sendrecv).reversed,
                                     rtcp: "9 IN IP4 0.0.0.0", rtcpMux: true, rtcpRsize: offered.rtcpRsize,
                                     iceUfrag: iceUfrag, icePwd: icePassword,
                                     fingerprints: [Fingerprint(algorithm: "sha-256", value: fingerprint)],
                                     setup: .active, codecs: [codec])
            m.extensionMaps = offered.extensionMaps.filter { $0.uri == "urn:ietf:params:rtp-hdrext:sdes:mid" }
            if let candidate {
                m.candidates = ["1 1 udp 2130706431 \(candidate.ip) \(candidate.port) typ host"]
                m.endOfCandidates = true
            }
            media.append(m)
        }
        guard audioPT != nil || videoPT != nil else { throw AnswerError.nothingToAccept }
        audioPayloadType = audioPT
        videoPayloadType = videoPT
        let accepted = media.filter { $0.port != 0 }.compactMap(\.mid)
        sessionDescription = SessionDescription(origin: .init(sessionID: String(UInt32.random(in: 1...UInt32.max))),
                                                groups: accepted.isEmpty ? [] : [MediaGroup(semantics: "BUNDLE", mids: accepted)],
                                                msidSemantic: MsidSemantic(semantics: "WMS", identifiers: []),
                                                media: media)
    }

    public var sdp: String { sessionDescription.serialized() }
}
