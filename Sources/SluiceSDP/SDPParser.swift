extension SessionDescription {
    /// Parses an SDP. Accepts `\r\n` and `\n` line endings, skips blank lines, keeps unknown
    /// attributes, ignores unknown line types.
    ///
    /// - Throws: `SDPError.malformed` with the 1-based line number and text of the first bad line.
    public init(parsing text: String) throws {
        var parser = SDPParser()
        self = try parser.parse(text)
    }
}

/// Line-by-line SDP reader. All splitting works on `Character`s so that what the writer
/// joins, the parser splits back identically (the fuzz round trip relies on it).
struct SDPParser {
    private var session = SessionDescription()
    private var media: MediaDescription?
    private var pending = PendingCodecs()
    private var lineNumber = 0
    private var lineText = ""

    /// rtpmap, fmtp and rtcp-fb may come in any order; codecs are assembled at the section's end.
    private struct PendingCodecs {
        var rtpmaps: [Int: CodecDescription] = [:]
        var fmtps: [Int: [FormatParameter]] = [:]
        var feedback: [Int: [RTCPFeedback]] = [:]
        var wildcardFeedback: [RTCPFeedback] = []
        var ssrcIndex: [UInt32: Int] = [:]
    }

    mutating func parse(_ text: String) throws -> SessionDescription {
        var sawVersion = false
        var number = 0
        for rawLine in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            var bytes = rawLine
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            var line = Substring(bytes)
            while let last = line.last, last == " " || last == "\t" { line = line.dropLast() }
            if line.isEmpty { continue }
            lineNumber = number
            lineText = String(line)
            if line.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                throw malformed("line contains a control character")
            }
            let chars = Array(line.prefix(2))
            guard chars.count == 2, chars[1] == "=" else { throw malformed("expected <type>=<value>") }
            let type = chars[0]
            let value = String(line.dropFirst(2))
            if !sawVersion {
                guard type == "v" else { throw malformed("SDP must start with v=0") }
                guard value.trimmed == "0" else { throw malformed("unsupported SDP version") }
                sawVersion = true
                continue
            }
            try parseLine(type: type, value: value)
        }
        guard sawVersion else {
            throw SDPError.malformed(line: 1, text: "", reason: "empty SDP")
        }
        finishMedia()
        return session
    }

    private func malformed(_ reason: String) -> SDPError {
        .malformed(line: lineNumber, text: lineText, reason: reason)
    }

    private mutating func parseLine(type: Character, value: String) throws {
        switch type {
        case "o":
            guard media == nil else { return }
            let f = value.fields
            guard f.count >= 6 else { throw malformed("o= needs 6 fields") }
            session.origin = .init(username: f[0], sessionID: f[1], sessionVersion: f[2],
                                   networkType: f[3], addressType: f[4], address: f[5])
        case "s":
            if media == nil { session.sessionName = value }
        case "c":
            let f = value.fields
            guard f.count >= 3 else { throw malformed("c= needs network type, address type and address") }
            let connection = ConnectionData(networkType: f[0], addressType: f[1], address: f[2])
            if media != nil { media?.connection = connection } else { session.connection = connection }
        case "b":
            let (kind, rest) = value.splitOnce(":")
            guard let rest, let amount = Int(rest.trimmed), amount >= 0 else {
                throw malformed("bandwidth is not a number")
            }
            let bandwidth = Bandwidth(type: kind.trimmed, value: amount)
            if media != nil { media?.bandwidths.append(bandwidth) } else { session.bandwidths.append(bandwidth) }
        case "m":
            try startMedia(value)
        case "a":
            let (name, attrValue) = value.splitOnce(":")
            if var section = media {
                media = nil
                defer { media = section }
                try parseMediaAttribute(name: name, value: attrValue, into: &section)
            } else {
                try parseSessionAttribute(name: name, value: attrValue)
            }
        default:
            break  // v (repeated), t, i, u, e, p, k, z, r and unknown types carry nothing Sluice uses.
        }
    }

    private mutating func startMedia(_ value: String) throws {
        finishMedia()
        let f = value.fields
        guard f.count >= 3 else { throw malformed("m= needs media, port, protocol and formats") }
        let (portText, countText) = f[1].splitOnce("/")
        guard let port = Int(portText) else { throw malformed("port is not a number") }
        guard (0...65535).contains(port) else { throw malformed("port is out of range") }
        var portCount: Int?
        if let countText {
            guard let count = Int(countText), count >= 1 else { throw malformed("port count is not a number") }
            portCount = count
        }
        let section = MediaDescription(kind: SDPMediaType(name: f[0]), port: port, portCount: portCount,
                                       proto: f[2], formats: Array(f.dropFirst(3)))
        if section.isRTP {
            for format in section.formats {
                guard let pt = Int(format), (0...127).contains(pt) else {
                    throw malformed("payload type is not a number from 0 to 127")
                }
            }
        }
        media = section
        pending = PendingCodecs()
    }

    private mutating func finishMedia() {
        guard var section = media else { return }
        var seen = Set<Int>()
        for pt in section.payloadTypes where seen.insert(pt).inserted {
            guard var codec = pending.rtpmaps[pt] else { continue }
            codec.parameters = pending.fmtps[pt] ?? []
            codec.feedback = pending.wildcardFeedback + (pending.feedback[pt] ?? [])
            section.codecs.append(codec)
        }
        session.media.append(section)
        media = nil
    }

    // MARK: Attributes

    private mutating func parseSessionAttribute(name: String, value: String?) throws {
        switch name {
        case "group":
            let f = try required(value, name).fields
            guard let semantics = f.first else { throw malformed("a=group needs semantics") }
            session.groups.append(MediaGroup(semantics: semantics, mids: Array(f.dropFirst())))
        case "msid-semantic":
            let f = (value ?? "").fields
            session.msidSemantic = MsidSemantic(semantics: f.first ?? "", identifiers: Array(f.dropFirst()))
        case "ice-lite": session.iceLite = true
        case "extmap-allow-mixed": session.extmapAllowMixed = true
        case "ice-ufrag": session.iceUfrag = try required(value, name)
        case "ice-pwd": session.icePwd = try required(value, name)
        case "ice-options": session.iceOptions = (value ?? "").fields
        case "fingerprint": session.fingerprints.append(try fingerprint(value))
        case "setup": session.setup = try setup(value)
        case "extmap": session.extensionMaps.append(try extensionMap(value))
        case "sendrecv", "sendonly", "recvonly", "inactive": session.direction = MediaDirection(rawValue: name)
        default: session.otherAttributes.append(SDPAttribute(name: name, value: value))
        }
    }

    private mutating func parseMediaAttribute(name: String, value: String?, into media: inout MediaDescription) throws {
        switch name {
        case "mid":
            let mid = try required(value, name)
            guard !mid.contains(where: { $0 == " " || $0 == "\t" }) else { throw malformed("mid is not a token") }
            media.mid = mid
        case "sendrecv", "sendonly", "recvonly", "inactive": media.direction = MediaDirection(rawValue: name)
        case "rtcp": media.rtcp = (value ?? "").trimmed
        case "rtcp-mux": media.rtcpMux = true
        case "rtcp-rsize": media.rtcpRsize = true
        case "bundle-only": media.bundleOnly = true
        case "ice-ufrag": media.iceUfrag = try required(value, name)
        case "ice-pwd": media.icePwd = try required(value, name)
        case "ice-options": media.iceOptions = (value ?? "").fields
        case "fingerprint": media.fingerprints.append(try fingerprint(value))
        case "setup": media.setup = try setup(value)
        case "candidate": media.candidates.append((value ?? "").trimmed)
        case "end-of-candidates": media.endOfCandidates = true
        case "extmap": media.extensionMaps.append(try extensionMap(value))
        case "rtpmap": try rtpmap(value)
        case "fmtp": try fmtp(value)
        case "rtcp-fb": try rtcpFeedback(value)
        case "msid":
            let f = (value ?? "").fields
            guard let stream = f.first else { throw malformed("a=msid needs a stream id") }
            media.msids.append(MediaStreamID(streamID: stream, trackID: f.count > 1 ? f[1] : nil))
        case "ssrc": try ssrc(value, into: &media)
        case "ssrc-group":
            let f = try required(value, name).fields
            guard let semantics = f.first else { throw malformed("a=ssrc-group needs semantics") }
            var ssrcs: [UInt32] = []
            for item in f.dropFirst() {
                guard let ssrc = UInt32(item) else { throw malformed("ssrc is not a 32-bit number") }
                ssrcs.append(ssrc)
            }
            media.ssrcGroups.append(SSRCGroup(semantics: semantics, ssrcs: ssrcs))
        case "rid": try rid(value, into: &media)
        case "simulcast": try simulcast(value, into: &media)
        case "sctp-port":
            guard let port = Int(try required(value, name)), (0...65535).contains(port) else {
                throw malformed("sctp-port is not a port number")
            }
            media.sctpPort = port
        case "max-message-size":
            guard let size = Int(try required(value, name)), size >= 0 else {
                throw malformed("max-message-size is not a number")
            }
            media.maxMessageSize = size
        default:
            media.otherAttributes.append(SDPAttribute(name: name, value: value))
        }
    }

    private func required(_ value: String?, _ name: String) throws -> String {
        let text = (value ?? "").trimmed
        guard !text.isEmpty else { throw malformed("a=\(name) needs a value") }
        return text
    }

    private func fingerprint(_ value: String?) throws -> Fingerprint {
        let f = (value ?? "").fields
        guard f.count >= 2 else { throw malformed("a=fingerprint needs a hash function and a value") }
        return Fingerprint(algorithm: f[0], value: f[1])
    }

    private func setup(_ value: String?) throws -> DTLSSetup {
        guard let setup = DTLSSetup(rawValue: (value ?? "").trimmed.lowercased()) else {
            throw malformed("a=setup is not actpass, active, passive or holdconn")
        }
        return setup
    }

    private func payloadType(_ text: String) throws -> Int {
        guard let pt = Int(text), (0...127).contains(pt) else {
            throw malformed("payload type is not a number from 0 to 127")
        }
        return pt
    }

    private func extensionMap(_ value: String?) throws -> ExtensionMap {
        let f = (value ?? "").fields
        guard f.count >= 2 else { throw malformed("a=extmap needs an id and a URI") }
        let (idText, directionText) = f[0].splitOnce("/")
        guard let id = Int(idText), (1...4351).contains(id) else { throw malformed("extmap id is not a number from 1 to 4351") }
        var direction: MediaDirection?
        if let directionText {
            guard let d = MediaDirection(rawValue: directionText) else { throw malformed("extmap direction is unknown") }
            direction = d
        }
        let attributes = f.count > 2 ? f.dropFirst(2).joined(separator: " ") : nil
        return ExtensionMap(id: id, direction: direction, uri: f[1], attributes: attributes)
    }

    private mutating func rtpmap(_ value: String?) throws {
        let f = (value ?? "").fields
        guard f.count >= 2 else { throw malformed("a=rtpmap needs a payload type and an encoding") }
        let pt = try payloadType(f[0])
        let parts = f[1].split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty else {
            throw malformed("a=rtpmap encoding is not name/clock rate[/channels]")
        }
        guard let rate = Int(parts[1]), rate > 0 else { throw malformed("clock rate is not a number") }
        var channels: Int?
        if parts.count == 3 {
            guard let c = Int(parts[2]), c > 0 else { throw malformed("channel count is not a number") }
            channels = c
        }
        if pending.rtpmaps[pt] == nil {
            pending.rtpmaps[pt] = CodecDescription(payloadType: pt, name: String(parts[0]), clockRate: rate, channels: channels)
        }
    }

    private mutating func fmtp(_ value: String?) throws {
        let text = (value ?? "").trimmed
        let (ptText, rest) = text.splitOnceWhitespace()
        let pt = try payloadType(ptText)
        if pending.fmtps[pt] == nil {
            pending.fmtps[pt] = Self.parameters(rest ?? "")
        }
    }

    static func parameters(_ text: String) -> [FormatParameter] {
        text.split(separator: ";").compactMap { item in
            let entry = String(item).trimmed
            guard !entry.isEmpty else { return nil }
            let (name, value) = entry.splitOnce("=")
            return FormatParameter(name: name.trimmed, value: value?.trimmed)
        }
    }

    private mutating func rtcpFeedback(_ value: String?) throws {
        let f = (value ?? "").fields
        guard f.count >= 2 else { throw malformed("a=rtcp-fb needs a payload type and a type") }
        let feedback = RTCPFeedback(type: f[1], parameter: f.count > 2 ? f.dropFirst(2).joined(separator: " ") : nil)
        if f[0] == "*" {
            pending.wildcardFeedback.append(feedback)
        } else {
            pending.feedback[try payloadType(f[0]), default: []].append(feedback)
        }
    }

    private mutating func ssrc(_ value: String?, into media: inout MediaDescription) throws {
        let (ssrcText, rest) = (value ?? "").trimmed.splitOnceWhitespace()
        guard let ssrc = UInt32(ssrcText) else { throw malformed("ssrc is not a 32-bit number") }
        let index: Int
        if let known = pending.ssrcIndex[ssrc] {
            index = known
        } else {
            index = media.ssrcs.count
            pending.ssrcIndex[ssrc] = index
            media.ssrcs.append(SSRCDescription(ssrc: ssrc))
        }
        if let rest, !rest.isEmpty {
            let (name, attrValue) = rest.splitOnce(":")
            media.ssrcs[index].attributes.append(SDPAttribute(name: name, value: attrValue))
        }
    }

    private static func isRIDToken(_ id: Substring) -> Bool {
        !id.isEmpty && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    private func rid(_ value: String?, into media: inout MediaDescription) throws {
        let f = (value ?? "").fields
        guard f.count >= 2 else { throw malformed("a=rid needs an id and a direction") }
        guard Self.isRIDToken(Substring(f[0])) else { throw malformed("rid id may hold only letters, digits, '-' and '_'") }
        guard let direction = RIDDescription.Direction(rawValue: f[1].lowercased()) else {
            throw malformed("rid direction is not send or recv")
        }
        let restrictions = Self.parameters(f.dropFirst(2).joined(separator: " "))
        media.rids.append(RIDDescription(id: f[0], direction: direction, restrictions: restrictions))
    }

    private func simulcast(_ value: String?, into media: inout MediaDescription) throws {
        let f = (value ?? "").fields
        guard !f.isEmpty, f.count % 2 == 0 else { throw malformed("a=simulcast needs send or recv followed by a rid list") }
        var description = media.simulcast ?? SimulcastDescription()
        var i = 0
        while i + 1 < f.count {
            var streams: [[SimulcastRID]] = []
            for stream in f[i + 1].split(separator: ";") {
                var alternatives: [SimulcastRID] = []
                for alternative in stream.split(separator: ",") {
                    var id = alternative
                    let paused = id.first == "~"
                    if paused { id = id.dropFirst() }
                    if id.hasPrefix("rid=") { id = id.dropFirst(4) }  // pre-RFC drafts wrote "rid=1"
                    guard Self.isRIDToken(id) else { throw malformed("simulcast rid may hold only letters, digits, '-' and '_'") }
                    alternatives.append(SimulcastRID(id: String(id), paused: paused))
                }
                if !alternatives.isEmpty { streams.append(alternatives) }
            }
            switch f[i].lowercased() {
            case "send": description.send += streams
            case "recv": description.recv += streams
            default: throw malformed("a=simulcast direction is not send or recv")
            }
            i += 2
        }
        media.simulcast = description
    }
}

extension StringProtocol {
    var trimmed: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }

    var fields: [String] {
        split(whereSeparator: { (c: Character) -> Bool in c == " " || c == "\t" }).map { String($0) }
    }

    /// Splits at the first `separator`; the second part is nil when there is none.
    func splitOnce(_ separator: Character) -> (String, String?) {
        guard let i = firstIndex(of: separator) else { return (String(self), nil) }
        return (String(self[..<i]), String(self[index(after: i)...]))
    }

    /// Splits at the first run of blanks; the rest is trimmed, nil when absent.
    func splitOnceWhitespace() -> (String, String?) {
        guard let i = firstIndex(where: { $0 == " " || $0 == "\t" }) else { return (String(self), nil) }
        return (String(self[..<i]), self[i...].trimmed)
    }
}
