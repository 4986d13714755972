import SluiceSDP

/// What the client needs from the server's SDP answer: ICE credentials, the DTLS fingerprint,
/// a candidate to send to, and per kind the payload type, header extension ids and SSRCs.
public struct ServerAnswer: Sendable, Hashable {
    public struct Track: Sendable, Hashable {
        public var mid: String
        public var payloadType: UInt8
        /// Audio: Opus in RED's payload type, when the answer has `red` (a publish answer lists it first).
        public var redPayloadType: UInt8?
        public var clockRate: Int
        public var codecName: String
        /// The server's SSRCs (a play answer's a=ssrc lines); empty in a publish answer.
        public var ssrcs: [UInt32]
        /// Negotiated extension ids by URI.
        public var extensionIDs: [String: UInt8]
    }

    /// A host candidate from the answer.
    public struct Candidate: Sendable, Hashable {
        public var ip: String
        public var port: Int

        public init(ip: String, port: Int) {
            self.ip = ip
            self.port = port
        }
    }

    public var iceUfrag: String
    public var icePassword: String
    public var fingerprintAlgorithm: String
    public var fingerprint: String
    public var setup: DTLSSetup?
    /// Every UDP candidate, in the answer's order.
    public var candidates: [Candidate]
    /// Every passive TCP candidate (ICE-TCP, `tcptype passive`), in the answer's order.
    public var tcpCandidates: [Candidate]
    public var audio: Track?
    public var video: Track?

    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        case sdp(String)
        case missing(String)

        public var description: String {
            switch self {
            case .sdp(let message): return "answer SDP: \(message)"
            case .missing(let what): return "answer has no \(what)"
            }
        }
    }

    public init(parsing sdp: String) throws {
        let answer: SessionDescription
        do {
            answer = try SessionDescription(parsing: sdp)
        } catch {
            throw ParseError.sdp("\(error)")
        }
        let accepted = answer.media.filter { $0.port != 0 || $0.bundleOnly }
        guard let first = accepted.first else { throw ParseError.missing("accepted m-line") }
        guard let ufrag = first.iceUfrag ?? answer.iceUfrag, let pwd = first.icePwd ?? answer.icePwd else {
            throw ParseError.missing("ICE credentials")
        }
        let fingerprints = first.fingerprints.isEmpty ? answer.fingerprints : first.fingerprints
        guard let fingerprint = fingerprints.first(where: { $0.algorithm.lowercased() == "sha-256" }) ?? fingerprints.first else {
            throw ParseError.missing("fingerprint")
        }
        iceUfrag = ufrag
        icePassword = pwd
        fingerprintAlgorithm = fingerprint.algorithm.lowercased()
        self.fingerprint = fingerprint.value
        setup = first.setup ?? answer.setup
        var candidates: [Candidate] = []
        var tcpCandidates: [Candidate] = []
        for m in accepted {
            for line in m.candidates {
                let fields = line.split(separator: " ")
                guard fields.count >= 6, let port = Int(fields[5]) else { continue }
                let candidate = Candidate(ip: String(fields[4]), port: port)
                switch fields[2].lowercased() {
                case "udp":
                    if !candidates.contains(candidate) { candidates.append(candidate) }
                case "tcp":
                    // Only a passive candidate accepts a connection (RFC 6544 section 4.5).
                    let passive = zip(fields, fields.dropFirst()).contains { $0.0 == "tcptype" && $0.1 == "passive" }
                    if passive, !tcpCandidates.contains(candidate) { tcpCandidates.append(candidate) }
                default:
                    continue
                }
            }
        }
        self.tcpCandidates = tcpCandidates
        if candidates.isEmpty, let address = first.connection?.address ?? answer.connection?.address, first.port > 0 {
            candidates.append(Candidate(ip: address, port: first.port))
        }
        self.candidates = candidates
        audio = accepted.first { $0.kind == .audio }.flatMap(Self.track)
        video = accepted.first { $0.kind == .video }.flatMap(Self.track)
    }

    private static func track(_ m: MediaDescription) -> Track? {
        guard let codec = m.codecs.first(where: { !$0.isRTX && !$0.hasName("red") })
                ?? m.payloadTypes.first.flatMap(m.codec(payloadType:)),
              let payloadType = UInt8(exactly: codec.payloadType), payloadType < 128 else { return nil }
        var ids: [String: UInt8] = [:]
        for e in m.extensionMaps {
            if let id = UInt8(exactly: e.id) { ids[e.uri] = id }
        }
        let repairs = Set(m.ssrcGroups.filter { $0.semantics.uppercased() == "FID" }.compactMap { $0.ssrcs.dropFirst().first })
        let red = m.codecs.first { $0.hasName("red") }.flatMap { UInt8(exactly: $0.payloadType) }
        return Track(mid: m.mid ?? "", payloadType: payloadType, redPayloadType: red, clockRate: codec.clockRate,
                     codecName: codec.name,
                     ssrcs: m.ssrcs.map(\.ssrc).filter { !repairs.contains($0) }, extensionIDs: ids)
    }
}
