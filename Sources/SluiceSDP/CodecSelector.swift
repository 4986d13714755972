import SluiceVocabulary

/// Picks the codec, RTX, feedback and header extensions of one m-line.
struct CodecSelector {
    /// RTCP feedback Sluice acts on (or sends), as (type, parameter).
    static let supportedFeedback: [(String, String?)] = [
        ("nack", nil), ("nack", "pli"), ("ccm", "fir"), ("goog-remb", nil), ("transport-cc", nil),
    ]

    static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    static let ridURI = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    static let repairedRidURI = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"
    static let absSendTimeURI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    static let transportCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    static let audioLevelURI = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
    static let dependencyDescriptorURI =
        "https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension"
    static let supportedExtensions = [midURI, ridURI, repairedRidURI, absSendTimeURI, transportCCURI, audioLevelURI,
                                      dependencyDescriptorURI]

    let preference: [String]

    /// The offered codec to use, its fmtp already adjusted for the answer; nil when none fits.
    func choose(from offered: [CodecDescription], publisher: NegotiatedCodec?) -> CodecDescription? {
        let media = offered.filter { !$0.isRTX }
        if let publisher {
            guard let match = media.first(where: { Self.matches($0, publisher) }) else { return nil }
            return Self.answerCodec(match, capLevelTo: publisher.parameters)
        }
        for name in preference {
            let candidates = media.enumerated().compactMap { index, codec in
                Self.rank(codec, as: name).map { (rank: $0, index: index, codec: codec) }
            }
            if let best = candidates.min(by: { ($0.rank, $0.index) < ($1.rank, $1.index) }) {
                return Self.answerCodec(best.codec, capLevelTo: nil)
            }
        }
        return nil
    }

    /// Lower is better; nil when `codec` is not an acceptable `name`.
    static func rank(_ codec: CodecDescription, as name: String) -> Int? {
        guard codec.hasName(name) else { return nil }
        switch name.lowercased() {
        case "opus":
            return codec.clockRate == 48000 && (codec.channels ?? 2) == 2 ? 0 : nil
        case "vp8":
            return codec.clockRate == 90000 ? 0 : nil
        case "vp9":
            return codec.clockRate == 90000 && (codec.parameters.value(of: "profile-id") ?? "0") == "0" ? 0 : nil
        case "av1":
            return codec.clockRate == 90000 && (codec.parameters.value(of: "profile") ?? "0") == "0" ? 0 : nil
        case "h264":
            guard codec.clockRate == 90000, let profile = H264ProfileLevelID(parameters: codec.parameters) else { return nil }
            let mode = codec.parameters.value(of: "packetization-mode") ?? "0"
            let modeRank: Int
            switch mode {
            case "1": modeRank = 0
            case "0": modeRank = 2
            default: return nil
            }
            switch profile.profile {
            case .constrainedBaseline: return modeRank
            case .baseline: return modeRank + 1
            default: return nil
            }
        default:
            return 0  // A configured codec without special rules matches by name alone.
        }
    }

    /// Same codec as the publisher's, so that packets pass through unchanged.
    static func matches(_ codec: CodecDescription, _ publisher: NegotiatedCodec) -> Bool {
        guard codec.hasName(publisher.name), codec.clockRate == publisher.clockRate else { return false }
        let theirs = publisher.parameters
        switch codec.name.lowercased() {
        case "opus":
            return (codec.channels ?? 2) == (publisher.channels ?? 2)
        case "vp9":
            return (codec.parameters.value(of: "profile-id") ?? "0") == (theirs.value(of: "profile-id") ?? "0")
        case "av1":
            return (codec.parameters.value(of: "profile") ?? "0") == (theirs.value(of: "profile") ?? "0")
        case "h264":
            guard (codec.parameters.value(of: "packetization-mode") ?? "0") == (theirs.value(of: "packetization-mode") ?? "0"),
                  let mine = H264ProfileLevelID(parameters: codec.parameters),
                  let other = H264ProfileLevelID(parameters: theirs) else { return false }
            return mine.profile == other.profile
        default:
            return true
        }
    }

    /// The offer's codec with feedback filtered and, for H264, the level capped.
    private static func answerCodec(_ codec: CodecDescription, capLevelTo publisher: [FormatParameter]?) -> CodecDescription {
        var answer = codec
        answer.feedback = filteredFeedback(codec.feedback)
        if codec.hasName("h264"), let publisher,
           let index = answer.parameters.firstIndex(where: { $0.name.lowercased() == "profile-level-id" }),
           let mine = H264ProfileLevelID(parameters: codec.parameters),
           let theirs = H264ProfileLevelID(parameters: publisher) {
            answer.parameters[index].value = mine.withLevel(atMost: theirs).text
        }
        return answer
    }

    static func filteredFeedback(_ offered: [RTCPFeedback]) -> [RTCPFeedback] {
        var kept: [RTCPFeedback] = []
        for fb in offered {
            let type = fb.type.lowercased()
            let parameter = fb.parameter?.lowercased()
            guard supportedFeedback.contains(where: { $0.0 == type && $0.1 == parameter }) else { continue }
            let normalized = RTCPFeedback(type: type, parameter: parameter)
            if !kept.contains(normalized) { kept.append(normalized) }
        }
        return kept
    }

    static func feedbackSet(_ feedback: [RTCPFeedback]) -> RTCPFeedbackSet {
        var set = RTCPFeedbackSet()
        for fb in feedback {
            switch (fb.type, fb.parameter) {
            case ("nack", nil): set.nack = true
            case ("nack", "pli"): set.pli = true
            case ("ccm", "fir"): set.fir = true
            case ("goog-remb", nil): set.remb = true
            case ("transport-cc", nil): set.transportCC = true
            default: break
            }
        }
        return set
    }

    /// The offered RTX payload type that repairs `payloadType`.
    static func rtx(for payloadType: Int, in offered: [CodecDescription]) -> CodecDescription? {
        guard var rtx = offered.first(where: { $0.isRTX && $0.associatedPayloadType == payloadType }) else { return nil }
        rtx.feedback = filteredFeedback(rtx.feedback)
        return rtx
    }

    /// The offered `red/48000/2` that carries `opus` only (its fmtp `111/111` names the Opus
    /// payload type for every block, RFC 2198 section 5), answered with no feedback; nil when
    /// none does. RED naming another codec, or none, is not taken: its blocks could be anything.
    static func red(for opus: CodecDescription, in offered: [CodecDescription]) -> CodecDescription? {
        guard opus.hasName("opus") else { return nil }
        let found = offered.first { codec in
            guard codec.hasName("red"), codec.clockRate == 48000, (codec.channels ?? 2) == 2,
                  codec.parameters.count == 1, codec.parameters[0].value == nil else { return false }
            let blocks = codec.parameters[0].name.split(separator: "/", omittingEmptySubsequences: false)
            // At most 16 blocks, as the forwarding side parses (SluiceRTP's `REDPayload.maxBlocks`).
            return (1...16).contains(blocks.count) && blocks.allSatisfy { Int($0) == opus.payloadType }
        }
        guard var red = found else { return nil }
        red.feedback = []
        return red
    }

    /// The offer's extmaps Sluice supports, with the offer's ids (one per URI, no id reused).
    static func extensions(_ offered: [ExtensionMap]) -> [ExtensionMap] {
        var chosen: [ExtensionMap] = []
        for e in offered where supportedExtensions.contains(e.uri) && (1...255).contains(e.id) && e.direction != .inactive {
            guard !chosen.contains(where: { $0.uri == e.uri || $0.id == e.id }) else { continue }
            chosen.append(ExtensionMap(id: e.id, uri: e.uri))
        }
        return chosen
    }

    static func extensionIDs(_ maps: [ExtensionMap]) -> NegotiatedExtensions {
        // `extensions(_:)` kept only ids in 1...255; `NegotiatedExtensions.id` says so once more.
        func id(_ uri: String) -> UInt8? { NegotiatedExtensions.id(maps.first { $0.uri == uri }?.id) }
        return NegotiatedExtensions(mid: id(midURI), rid: id(ridURI), repairedRid: id(repairedRidURI),
                                    absSendTime: id(absSendTimeURI), transportCC: id(transportCCURI),
                                    audioLevel: id(audioLevelURI), dependencyDescriptor: id(dependencyDescriptorURI))
    }
}
