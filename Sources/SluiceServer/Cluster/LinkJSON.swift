import SluiceControl
import SluiceJSON
import SluiceJSONParser
import SluiceVocabulary
import SluiceWire

/// The JSON of the nodes' link exchange (docs/cluster.md, "Relay links"; docs/protocol.md
/// section 2): the edge's `LinkRequest` as the body of `POST /api/v1/cluster/links`, and the
/// origin's `LinkAnswer` as its 200 body. Both sides use this one file, so what one writes the
/// other reads.
///
/// Both directions read network input, so decoding is strict: every known member is checked
/// for type, length, characters and range, and the first bad one is named. Unknown members
/// are ignored, so a node one version ahead can add one without breaking the others.
public enum LinkJSON {
    /// What was wrong with a body; `field` is its JSON path ("fingerprint.value",
    /// "video.ssrcs[1]"), empty for the body as a whole.
    public struct DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        public var field: String
        public var problem: String
        public init(field: String, problem: String) {
            self.field = field
            self.problem = problem
        }
        public var description: String { field.isEmpty ? problem : "'\(field)' \(problem)" }
    }

    // MARK: LinkRequest

    public static func json(_ request: LinkRequest) -> JSONValue {
        ["stream": .string(request.stream), "edgeNode": .string(request.edgeNode),
         "iceUfrag": .string(request.iceUfrag), "icePassword": .string(request.icePassword),
         "fingerprint": fingerprint(request.fingerprintAlgorithm, request.fingerprint)]
    }

    public static func request(from bytes: [UInt8]) throws(DecodingError) -> LinkRequest {
        let body = try object(parsing: bytes)
        // Checked in the order the members are documented, so the first bad one is named.
        let stream = try token(body, "stream")
        let edgeNode = try nodeID(body, "edgeNode")
        let ufrag = try ice(body, "iceUfrag", length: 4...256)
        let password = try ice(body, "icePassword", length: 22...256)
        let fingerprint = try fingerprint(body, "fingerprint")
        return LinkRequest(stream: stream, edgeNode: edgeNode, iceUfrag: ufrag, icePassword: password,
                           fingerprintAlgorithm: fingerprint.algorithm, fingerprint: fingerprint.value)
    }

    // MARK: LinkAnswer

    public static func json(_ answer: LinkAnswer) -> JSONValue {
        var object: JSONObject = [
            "link": .string(answer.link), "iceUfrag": .string(answer.iceUfrag), "icePassword": .string(answer.icePassword),
            "fingerprint": fingerprint(answer.fingerprintAlgorithm, answer.fingerprint),
            "candidate": ["ip": .string(answer.candidateIP), "port": JSONValue(answer.candidatePort)],
        ]
        if let audio = answer.audio { object["audio"] = track(audio) }
        if let video = answer.video { object["video"] = track(video) }
        return .object(object)
    }

    public static func answer(from bytes: [UInt8]) throws(DecodingError) -> LinkAnswer {
        let body = try object(parsing: bytes)
        let link = try token(body, "link")
        let ufrag = try ice(body, "iceUfrag", length: 4...256)
        let password = try ice(body, "icePassword", length: 22...256)
        let fingerprint = try fingerprint(body, "fingerprint")
        let candidate = try member(body, "candidate", path: "candidate")
        guard let candidateObject = candidate.objectValue else {
            throw DecodingError(field: "candidate", problem: "must be an object {\"ip\", \"port\"}, not \(candidate.kindDescription)")
        }
        let ipValue = try member(candidateObject, "ip", path: "candidate.ip")
        guard let ip = ipValue.stringValue, SocketAddress(host: ip, port: 1) != nil else {
            throw DecodingError(field: "candidate.ip", problem: "must be an IPv4 or IPv6 address")
        }
        let port = try integer(candidateObject, "port", path: "candidate.port", range: 1...65535)
        let audio = try optionalTrack(body, "audio", ssrcs: 1...1)
        let video = try optionalTrack(body, "video", ssrcs: 1...maxLayers)
        guard audio != nil || video != nil else {
            throw DecodingError(field: "", problem: "names neither 'audio' nor 'video': a link carries at least one kind")
        }
        if let audio, let video, !Set(audio.ssrcs).isDisjoint(with: video.ssrcs) {
            throw DecodingError(field: "video.ssrcs", problem: "shares an SSRC with 'audio.ssrcs'")
        }
        return LinkAnswer(link: link, iceUfrag: ufrag, icePassword: password,
                          fingerprintAlgorithm: fingerprint.algorithm, fingerprint: fingerprint.value,
                          candidateIP: ip, candidatePort: Int(port), audio: audio, video: video)
    }

    /// Simulcast layers a link may carry: more than any publisher sends (three).
    static let maxLayers = 8

    // MARK: Parts

    static func codec(_ codec: StreamCodec) -> JSONValue {
        var object: JSONObject = ["name": .string(codec.name), "payloadType": JSONValue(Int(codec.payloadType)),
                                  "clockRate": JSONValue(Int(codec.clockRate)), "fmtp": .string(codec.fmtp)]
        if let red = codec.redPayloadType { object["redPayloadType"] = JSONValue(Int(red)) }
        return .object(object)
    }

    static func codec(_ object: JSONObject, path: String) throws(DecodingError) -> StreamCodec {
        let nameValue = try member(object, "name", path: "\(path).name")
        guard let name = nameValue.stringValue, (1...64).contains(name.utf8.count),
              name.utf8.allSatisfy({ isTokenByte($0) && $0 != UInt8(ascii: "~") }) else {
            throw DecodingError(field: "\(path).name", problem: "must be a codec name of 1 to 64 letters, digits, '.', '_' or '-'")
        }
        let payloadType = try integer(object, "payloadType", path: "\(path).payloadType", range: 0...127)
        let clockRate = try integer(object, "clockRate", path: "\(path).clockRate", range: 1...Int64(UInt32.max))
        var fmtp = ""
        if let value = object["fmtp"] {
            guard let text = value.stringValue, text.utf8.count <= 1024,
                  text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                throw DecodingError(field: "\(path).fmtp", problem: "must be a string of at most 1024 printable ASCII characters")
            }
            fmtp = text
        }
        var red: UInt8?
        if object["redPayloadType"] != nil {
            let number = try integer(object, "redPayloadType", path: "\(path).redPayloadType", range: 0...127)
            guard number != payloadType else {
                throw DecodingError(field: "\(path).redPayloadType", problem: "must differ from 'payloadType'")
            }
            red = UInt8(number)
        }
        return StreamCodec(name: name, payloadType: UInt8(payloadType), clockRate: UInt32(clockRate), fmtp: fmtp,
                           redPayloadType: red)
    }

    static func track(_ track: LinkTrack) -> JSONValue {
        var extensions = JSONObject()
        let ids = track.extensions
        for (key, id) in [("mid", ids.mid), ("rid", ids.rid), ("repairedRid", ids.repairedRid),
                          ("absSendTime", ids.absSendTime), ("transportCC", ids.transportCC),
                          ("audioLevel", ids.audioLevel), ("dependencyDescriptor", ids.dependencyDescriptor)] {
            if let id { extensions[key] = JSONValue(Int(id)) }
        }
        var object: JSONObject = ["codec": codec(track.codec), "extensions": .object(extensions),
                                  "ssrcs": .array(track.ssrcs.map { JSONValue(Int64($0)) })]
        if track.encrypted { object["encrypted"] = true }
        return .object(object)
    }

    private static func optionalTrack(_ body: JSONObject, _ key: String,
                                      ssrcs count: ClosedRange<Int>) throws(DecodingError) -> LinkTrack? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let object = value.objectValue else {
            throw DecodingError(field: key, problem: "must be an object {\"codec\", \"extensions\", \"ssrcs\"}, not \(value.kindDescription)")
        }
        let codecValue = try member(object, "codec", path: "\(key).codec")
        guard let codecObject = codecValue.objectValue else {
            throw DecodingError(field: "\(key).codec", problem: "must be an object, not \(codecValue.kindDescription)")
        }
        let codec = try codec(codecObject, path: "\(key).codec")
        var extensions = NegotiatedExtensions()
        if let value = object["extensions"], !value.isNull {
            guard let ids = value.objectValue else {
                throw DecodingError(field: "\(key).extensions", problem: "must be an object of extension ids, not \(value.kindDescription)")
            }
            func id(_ name: String) throws(DecodingError) -> UInt8? {
                guard let idValue = ids[name], !idValue.isNull else { return nil }
                guard let number = idValue.intValue, (1...255).contains(number) else {
                    throw DecodingError(field: "\(key).extensions.\(name)", problem: "must be an extension id from 1 to 255")
                }
                return UInt8(number)
            }
            extensions = NegotiatedExtensions(mid: try id("mid"), rid: try id("rid"), repairedRid: try id("repairedRid"),
                                              absSendTime: try id("absSendTime"), transportCC: try id("transportCC"),
                                              audioLevel: try id("audioLevel"),
                                              dependencyDescriptor: try id("dependencyDescriptor"))
        }
        let ssrcValue = try member(object, "ssrcs", path: "\(key).ssrcs")
        guard let items = ssrcValue.arrayValue, count.contains(items.count) else {
            let shape = count.lowerBound == count.upperBound ? "one SSRC" : "\(count.lowerBound) to \(count.upperBound) SSRCs"
            throw DecodingError(field: "\(key).ssrcs", problem: "must be an array of \(shape)")
        }
        var ssrcs: [UInt32] = []
        for (i, item) in items.enumerated() {
            guard let number = item.intValue, (0...Int64(UInt32.max)).contains(number) else {
                throw DecodingError(field: "\(key).ssrcs[\(i)]", problem: "must be an SSRC from 0 to 4294967295")
            }
            guard !ssrcs.contains(UInt32(number)) else {
                throw DecodingError(field: "\(key).ssrcs[\(i)]", problem: "repeats an SSRC")
            }
            ssrcs.append(UInt32(number))
        }
        var track = LinkTrack(codec: codec, extensions: extensions, ssrcs: ssrcs)
        if let value = object["encrypted"], !value.isNull {
            guard let flag = value.boolValue else {
                throw DecodingError(field: "\(key).encrypted", problem: "must be true or false, not \(value.kindDescription)")
            }
            track.encrypted = flag
        }
        return track
    }

    private static func fingerprint(_ algorithm: String, _ value: String) -> JSONValue {
        ["algorithm": .string(algorithm), "value": .string(value)]
    }

    /// Hash functions of RFC 8122 and their digest lengths in bytes.
    static let digestLengths = ["sha-1": 20, "sha-224": 28, "sha-256": 32, "sha-384": 48, "sha-512": 64]

    /// The algorithm in lower case and the value as SDP writes it: colon-separated upper-case
    /// hex pairs, as many as the algorithm's digest has bytes.
    private static func fingerprint(_ body: JSONObject, _ key: String) throws(DecodingError) -> (algorithm: String, value: String) {
        let value = try member(body, key, path: key)
        guard let object = value.objectValue else {
            throw DecodingError(field: key, problem: "must be an object {\"algorithm\", \"value\"}, not \(value.kindDescription)")
        }
        let algorithmValue = try member(object, "algorithm", path: "\(key).algorithm")
        guard let algorithm = algorithmValue.stringValue?.lowercased(), let length = digestLengths[algorithm] else {
            throw DecodingError(field: "\(key).algorithm", problem: "must be one of \(digestLengths.keys.sorted().joined(separator: ", "))")
        }
        let digestValue = try member(object, "value", path: "\(key).value")
        let hex = Set("0123456789ABCDEF")
        guard let text = digestValue.stringValue?.uppercased(), text.utf8.count == length * 3 - 1,
              text.split(separator: ":", omittingEmptySubsequences: false)
                  .allSatisfy({ $0.count == 2 && $0.allSatisfy(hex.contains) }) else {
            throw DecodingError(field: "\(key).value", problem: "must be \(length) colon-separated hex bytes (\(algorithm))")
        }
        return (algorithm, text)
    }

    private static func object(parsing bytes: [UInt8]) throws(DecodingError) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw DecodingError(field: "", problem: "The body is not valid JSON: \(error)")
        }
        guard let object = value.objectValue else {
            throw DecodingError(field: "", problem: "The body must be a JSON object, not \(value.kindDescription)")
        }
        return object
    }

    private static func member(_ object: JSONObject, _ key: String, path: String) throws(DecodingError) -> JSONValue {
        guard let value = object[key], !value.isNull else { throw DecodingError(field: path, problem: "is required") }
        return value
    }

    private static func integer(_ object: JSONObject, _ key: String, path: String,
                                range: ClosedRange<Int64>) throws(DecodingError) -> Int64 {
        let value = try member(object, key, path: path)
        guard let number = value.intValue, range.contains(number) else {
            throw DecodingError(field: path, problem: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A stream name or link id: 1 to 128 of [A-Za-z0-9._~-], the characters of a stream name
    /// (a link id goes into the DELETE's path as it is).
    private static func token(_ object: JSONObject, _ key: String) throws(DecodingError) -> String {
        let value = try member(object, key, path: key)
        guard let text = value.stringValue, (1...128).contains(text.utf8.count), text.utf8.allSatisfy(isTokenByte) else {
            throw DecodingError(field: key, problem: "must be 1 to 128 characters from [A-Za-z0-9._~-]")
        }
        return text
    }

    /// A `cluster.nodeId`: 1 to 64 letters, digits, '.', '_', '-'.
    private static func nodeID(_ object: JSONObject, _ key: String) throws(DecodingError) -> String {
        let value = try member(object, key, path: key)
        guard let text = value.stringValue, (1...64).contains(text.utf8.count),
              text.utf8.allSatisfy({ isTokenByte($0) && $0 != UInt8(ascii: "~") }) else {
            throw DecodingError(field: key, problem: "must be a node id: 1 to 64 letters, digits, '.', '_' or '-'")
        }
        return text
    }

    /// An ICE ufrag or password: ice-chars (ALPHA / DIGIT / "+" / "/", RFC 8839) in `length`.
    private static func ice(_ object: JSONObject, _ key: String, length: ClosedRange<Int>) throws(DecodingError) -> String {
        let value = try member(object, key, path: key)
        guard let text = value.stringValue, length.contains(text.utf8.count), text.utf8.allSatisfy(isICEByte) else {
            throw DecodingError(field: key, problem: "must be \(length.lowerBound) to \(length.upperBound) ICE characters "
                                    + "(letters, digits, '+', '/')")
        }
        return text
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    private static func isICEByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}
