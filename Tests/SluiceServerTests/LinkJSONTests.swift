import SluiceControl
import SluiceJSON
import SluiceJSONParser
import SluiceVocabulary
import Testing
@testable import SluiceServer

/// The link exchange's JSON (docs/cluster.md "Relay links"): what one node writes the other
/// reads back unchanged, and every bad member is refused with its name.
struct LinkJSONTests {
    static let fingerprint = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")

    static let request = LinkRequest(stream: "cam-1", edgeNode: "node2", iceUfrag: "abcd1234",
                                     icePassword: "abcdefghijklmnopqrstuv+/", fingerprintAlgorithm: "sha-256",
                                     fingerprint: fingerprint)

    static let answer = LinkAnswer(
        link: "Lk7", iceUfrag: "wxyz", icePassword: "ABCDEFGHIJKLMNOPQRSTUVWX", fingerprintAlgorithm: "sha-256",
        fingerprint: fingerprint, candidateIP: "127.0.0.2", candidatePort: 10000,
        audio: LinkTrack(codec: StreamCodec(name: "opus", payloadType: 111, clockRate: 48000, fmtp: "minptime=10;useinbandfec=1",
                                            redPayloadType: 63),
                         extensions: NegotiatedExtensions(mid: 1, audioLevel: 10), ssrcs: [1234]),
        video: LinkTrack(codec: StreamCodec(name: "VP8", payloadType: 96, clockRate: 90000, fmtp: ""),
                         extensions: NegotiatedExtensions(mid: 1, rid: 2, repairedRid: 3, absSendTime: 4, transportCC: 5,
                                                          dependencyDescriptor: 12),
                         ssrcs: [11, 22, UInt32.max], encrypted: true))

    @Test func aRequestSurvivesItsJSON() throws {
        let bytes = LinkJSON.json(Self.request).serializedBytes()
        #expect(try LinkJSON.request(from: bytes) == Self.request)
        let value = try JSONValue.parse(bytes)
        #expect(value["fingerprint"]?["algorithm"] == "sha-256")
        #expect(value["edgeNode"] == "node2")
    }

    @Test func anAnswerSurvivesItsJSONWithEveryExtension() throws {
        let bytes = LinkJSON.json(Self.answer).serializedBytes()
        #expect(try LinkJSON.answer(from: bytes) == Self.answer)
        let value = try JSONValue.parse(bytes)
        #expect(value["candidate"]?["port"] == 10000)
        #expect(value["video"]?["extensions"]?["transportCC"] == 5)
        #expect(value["video"]?["extensions"]?["dependencyDescriptor"] == 12)
        #expect(value["video"]?["encrypted"] == true)
        #expect(value["audio"]?["encrypted"] == nil)
        #expect(value["audio"]?["codec"]?["redPayloadType"] == 63)
        #expect(value["video"]?["codec"]?["redPayloadType"] == nil)
        #expect(value["video"]?["ssrcs"]?[2] == JSONValue(Int64(UInt32.max)))
        #expect(value["audio"]?["codec"]?["fmtp"] == "minptime=10;useinbandfec=1")
        // One kind alone is an answer too; an absent kind stays absent.
        var audioOnly = Self.answer
        audioOnly.video = nil
        let audioBytes = LinkJSON.json(audioOnly).serializedBytes()
        #expect(try JSONValue.parse(audioBytes)["video"] == nil)
        #expect(try LinkJSON.answer(from: audioBytes) == audioOnly)
    }

    @Test func readsWhatSDPWritesInAnyCaseAndIgnoresUnknownMembers() throws {
        var value = LinkJSON.json(Self.request)
        guard case .object(var object) = value else { return }
        object["fingerprint"] = ["algorithm": "SHA-256", "value": .string(Self.fingerprint.lowercased())]
        object["futureMember"] = [1, 2]
        value = .object(object)
        #expect(try LinkJSON.request(from: value.serializedBytes()) == Self.request)
    }

    /// Every member of a request, broken in turn, is named in the refusal.
    @Test func refusesEveryBadRequestMemberByName() throws {
        let good = LinkJSON.json(Self.request)
        let cases: [(String, JSONValue?, String)] = [
            ("stream", nil, "is required"), ("stream", "", "must be 1 to 128"), ("stream", "a/b", "must be 1 to 128"),
            ("stream", 7, "must be 1 to 128"), ("edgeNode", "no de", "must be a node id"), ("edgeNode", nil, "is required"),
            ("iceUfrag", "abc", "ICE characters"), ("iceUfrag", "ab cd", "ICE characters"),
            ("icePassword", "tooshort", "ICE characters"), ("icePassword", .null, "is required"),
            ("fingerprint", "AB:CD", "must be an object"), ("fingerprint", nil, "is required"),
        ]
        for (key, replacement, problem) in cases {
            try expectRefusal(replacing: key, with: replacement, in: good, field: key, problem: problem, decode: request)
        }
        let fingerprints: [(JSONValue, String, String)] = [
            (["algorithm": "md5", "value": .string(Self.fingerprint)], "fingerprint.algorithm", "must be one of"),
            (["value": .string(Self.fingerprint)], "fingerprint.algorithm", "is required"),
            (["algorithm": "sha-256"], "fingerprint.value", "is required"),
            (["algorithm": "sha-256", "value": "AB:CD"], "fingerprint.value", "32 colon-separated hex bytes"),
            (["algorithm": "sha-1", "value": .string(Self.fingerprint)], "fingerprint.value", "20 colon-separated"),
            (["algorithm": "sha-256", "value": .string(Self.fingerprint.replacingOccurrences(of: "0", with: "G"))],
             "fingerprint.value", "hex"),
        ]
        for (replacement, field, problem) in fingerprints {
            try expectRefusal(replacing: "fingerprint", with: replacement, in: good, field: field, problem: problem, decode: request)
        }
    }

    @Test func refusesEveryBadAnswerMemberByName() throws {
        let good = LinkJSON.json(Self.answer)
        let video = good["video"]!
        func videoWith(_ key: String, _ value: JSONValue?) -> JSONValue { Self.replacing(key, with: value, in: video) }
        let codec = video["codec"]!
        func codecWith(_ key: String, _ value: JSONValue?) -> JSONValue {
            videoWith("codec", Self.replacing(key, with: value, in: codec))
        }
        let cases: [(String, JSONValue?, String, String)] = [
            ("link", nil, "link", "is required"), ("link", "a/b", "link", "must be 1 to 128"),
            ("iceUfrag", "x", "iceUfrag", "ICE"), ("icePassword", 1, "icePassword", "ICE"),
            ("fingerprint", .null, "fingerprint", "is required"),
            ("candidate", nil, "candidate", "is required"), ("candidate", "127.0.0.1:1", "candidate", "must be an object"),
            ("candidate", ["ip": "localhost", "port": 1], "candidate.ip", "IPv4 or IPv6"),
            ("candidate", ["port": 1], "candidate.ip", "is required"),
            ("candidate", ["ip": "10.0.0.1", "port": 0], "candidate.port", "from 1 to 65535"),
            ("candidate", ["ip": "10.0.0.1", "port": 70000], "candidate.port", "from 1 to 65535"),
            ("candidate", ["ip": "10.0.0.1", "port": "1"], "candidate.port", "integer"),
            ("audio", "opus", "audio", "must be an object"),
            ("video", videoWith("codec", nil), "video.codec", "is required"),
            ("video", videoWith("codec", "VP8"), "video.codec", "must be an object"),
            ("video", codecWith("name", ""), "video.codec.name", "codec name"),
            ("video", codecWith("name", "VP 8"), "video.codec.name", "codec name"),
            ("video", codecWith("payloadType", 128), "video.codec.payloadType", "from 0 to 127"),
            ("video", videoWith("encrypted", "yes"), "video.encrypted", "must be true or false"),
            ("video", codecWith("payloadType", -1), "video.codec.payloadType", "from 0 to 127"),
            ("video", codecWith("clockRate", 0), "video.codec.clockRate", "from 1 to 4294967295"),
            ("video", codecWith("clockRate", 4_294_967_296), "video.codec.clockRate", "from 1 to 4294967295"),
            ("video", codecWith("fmtp", 5), "video.codec.fmtp", "printable ASCII"),
            ("video", codecWith("fmtp", "a\nb"), "video.codec.fmtp", "printable ASCII"),
            ("video", codecWith("redPayloadType", 128), "video.codec.redPayloadType", "from 0 to 127"),
            ("video", codecWith("redPayloadType", "63"), "video.codec.redPayloadType", "from 0 to 127"),
            ("video", codecWith("redPayloadType", 96), "video.codec.redPayloadType", "must differ from 'payloadType'"),
            ("video", videoWith("extensions", [1]), "video.extensions", "must be an object"),
            ("video", videoWith("extensions", ["rid": 0]), "video.extensions.rid", "from 1 to 255"),
            ("video", videoWith("extensions", ["transportCC": 256]), "video.extensions.transportCC", "from 1 to 255"),
            ("video", videoWith("extensions", ["mid": "1"]), "video.extensions.mid", "from 1 to 255"),
            ("video", videoWith("ssrcs", nil), "video.ssrcs", "is required"),
            ("video", videoWith("ssrcs", []), "video.ssrcs", "1 to 8 SSRCs"),
            ("video", videoWith("ssrcs", .array(Array(repeating: 1, count: 9))), "video.ssrcs", "1 to 8 SSRCs"),
            ("video", videoWith("ssrcs", [1, -1]), "video.ssrcs[1]", "from 0 to 4294967295"),
            ("video", videoWith("ssrcs", [1, 4_294_967_296]), "video.ssrcs[1]", "from 0 to 4294967295"),
            ("video", videoWith("ssrcs", [1, 1]), "video.ssrcs[1]", "repeats an SSRC"),
            ("video", videoWith("ssrcs", [1234]), "video.ssrcs", "shares an SSRC with 'audio.ssrcs'"),
            ("audio", Self.replacing("ssrcs", with: [1, 2], in: good["audio"]!), "audio.ssrcs", "one SSRC"),
        ]
        for (key, replacement, field, problem) in cases {
            try expectRefusal(replacing: key, with: replacement, in: good, field: field, problem: problem, decode: answer)
        }
        // Neither kind: nothing to relay.
        let bare = Self.replacing("audio", with: nil, in: Self.replacing("video", with: nil, in: good))
        try expectRefusal(bare, field: "", problem: "neither 'audio' nor 'video'", decode: answer)
    }

    @Test func namesTheFirstBadMemberInDocumentOrder() throws {
        do {
            _ = try LinkJSON.request(from: Array(#"{"stream": 1}"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.field == "stream")
        }
        do {
            _ = try LinkJSON.answer(from: Array(#"{"link": "L", "candidate": 1}"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.field == "iceUfrag")
        }
    }

    @Test func refusesBodiesThatAreNotObjects() throws {
        for (body, problem) in [("", "not valid JSON"), ("{", "not valid JSON"), ("[1]", "must be a JSON object"),
                                ("\"x\"", "must be a JSON object"), (#"{"a":1,"a":2}"#, "not valid JSON")] {
            for decode in [request, answer] {
                do {
                    try decode(Array(body.utf8))
                    Issue.record("accepted \(body)")
                } catch {
                    #expect(error.field == "")
                    #expect(error.problem.contains(problem), "\(error)")
                }
            }
        }
    }

    // MARK: Helpers

    private func request(_ bytes: [UInt8]) throws(LinkJSON.DecodingError) { _ = try LinkJSON.request(from: bytes) }
    private func answer(_ bytes: [UInt8]) throws(LinkJSON.DecodingError) { _ = try LinkJSON.answer(from: bytes) }

    static func replacing(_ key: String, with replacement: JSONValue?, in value: JSONValue) -> JSONValue {
        guard case .object(var object) = value else { return value }
        if let replacement {
            object[key] = replacement
        } else {
            var kept = JSONObject()
            for (name, member) in object where name != key { kept[name] = member }
            object = kept
        }
        return .object(object)
    }

    private func expectRefusal(replacing key: String, with replacement: JSONValue?, in good: JSONValue, field: String,
                               problem: String, decode: ([UInt8]) throws(LinkJSON.DecodingError) -> Void,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expectRefusal(Self.replacing(key, with: replacement, in: good), field: field, problem: problem, decode: decode,
                          sourceLocation: sourceLocation)
    }

    private func expectRefusal(_ body: JSONValue, field: String, problem: String,
                               decode: ([UInt8]) throws(LinkJSON.DecodingError) -> Void,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        do {
            try decode(body.serializedBytes())
            Issue.record("accepted \(body.serialized()) (expected '\(field)' \(problem))", sourceLocation: sourceLocation)
        } catch {
            #expect(error.field == field, "\(error)", sourceLocation: sourceLocation)
            #expect(error.problem.contains(problem), "\(error)", sourceLocation: sourceLocation)
        }
    }
}
