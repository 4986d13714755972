import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// The two endpoints of RFC 9725 and the WHEP draft: WHIP publishes, WHEP plays.
public enum WHIPKind: String, Sendable {
    case whip
    case whep

    var role: StreamRole { self == .whip ? .publish : .play }
    /// "/whip" or "/whep".
    public var pathPrefix: String { "/" + rawValue }
}

/// A path under /whip or /whep: a stream's endpoint (`/whip/cam`) or one of its resources
/// (`/whip/cam/<id>`). The stream name is checked later, so that a bad one gets 400, not 404.
struct WHIPPath: Equatable {
    var kind: WHIPKind
    var stream: String
    var resourceID: String?

    /// nil for anything else (404); a trailing slash is ignored.
    init?(_ path: String) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard (2...3).contains(segments.count), let kind = WHIPKind(rawValue: segments[0]) else { return nil }
        self.kind = kind
        stream = segments[1]
        resourceID = segments.count == 3 ? segments[2] : nil
    }

    init(kind: WHIPKind, stream: String, resourceID: String? = nil) {
        self.kind = kind
        self.stream = stream
        self.resourceID = resourceID
    }

    var location: String {
        kind.pathPrefix + "/" + stream + (resourceID.map { "/" + $0 } ?? "")
    }
}

/// A refusal, answered with the admin API's error body (`{"error":{"code","message","reason"}}`).
struct WHIPError: Error, Equatable {
    var status: Int
    var message: String
    var reason: String
    var headers: [(name: String, value: String)]

    init(status: Int, message: String, reason: String, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.message = message
        self.reason = reason
        self.headers = headers
    }

    static func == (lhs: WHIPError, rhs: WHIPError) -> Bool {
        lhs.status == rhs.status && lhs.message == rhs.message && lhs.reason == rhs.reason
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    var response: HTTPResponse {
        .error(status: status, message: message, reason: reason, headers: headers)
    }

    static func badRequest(_ message: String) -> WHIPError {
        WHIPError(status: 400, message: message, reason: "BAD_REQUEST")
    }

    /// How long a WHEP client waits before asking again for a stream that is not live:
    /// short, because a publisher usually comes within seconds of its players.
    static let retryAfterSeconds = 1

    /// The `error` member of a JSON-RPC response to a resource's own request, as HTTP says it.
    init(rpcError error: JSONValue) {
        self.init(RPCError(code: Int(error["code"]?.intValue ?? -32603),
                           message: error["message"]?.stringValue ?? "Unknown error",
                           reason: error["data"]?["reason"]?.stringValue))
    }

    /// What a failed `connect`, `publish`, `play` or `precall` means over HTTP (docs/protocol.md section 6).
    init(_ error: RPCError) {
        let reason = error.reason ?? "INTERNAL_ERROR"
        switch error.code {
        case 1001:
            self.init(status: 401, message: error.message, reason: reason,
                      headers: [("www-authenticate", WHIPAuthorization.challengeInvalid)])
        case 1011:
            self.init(status: 401, message: error.message, reason: reason,
                      headers: [("www-authenticate", WHIPAuthorization.challengeInvalid)])
        case 1002, 1009, 1012:
            self.init(status: 403, message: error.message, reason: reason)
        case 1003:
            self.init(status: 409, message: error.message, reason: reason)
        case 1004:
            self.init(status: 409, message: "Stream not live", reason: reason,
                      headers: [("retry-after", String(WHIPError.retryAfterSeconds))])
        case 1005:
            self.init(status: 422, message: error.message, reason: reason)
        case 1006:
            self.init(status: 400, message: error.message, reason: reason)
        case 1008, 1013, 1017:
            self.init(status: 503, message: error.message, reason: reason)
        case -32602:
            self.init(status: 400, message: error.message, reason: "BAD_REQUEST")
        default:
            self.init(status: 500, message: error.message, reason: "INTERNAL_ERROR")
        }
    }
}

/// The bearer token is an app key of the config or an access token (docs/protocol.md
/// section 6): a bearer equal to an app key is that key, and one of a token's form is a token.
enum WHIPAuthorization {
    static let challenge = "Bearer realm=\"sluice\""
    static let challengeInvalid = "Bearer realm=\"sluice\", error=\"invalid_token\""

    /// Who is asking: the app, and the token when the bearer is one (the session's `connect`
    /// takes it, so that its grants apply).
    struct Credential {
        var appKey: String
        var token: String?
    }

    /// The credential, or the 401 to answer with.
    static func credential(of request: HTTPRequest, isAppKey: (String) -> Bool,
                           check: (_ appKey: String?, _ token: String?) throws(AccessRefusal) -> SessionAccess)
        -> Result<Credential, WHIPError> {
        guard let bearer = request.bearerToken else {
            return .failure(WHIPError(status: 401, message: "An 'Authorization: Bearer <app key or token>' header is required",
                                      reason: "UNAUTHORIZED", headers: [("www-authenticate", challenge)]))
        }
        do throws(AccessRefusal) {
            // Not of a token's form: an app key, known or not.
            if isAppKey(bearer) || !AccessTokenVerifier.looksLikeToken(bearer) {
                return .success(Credential(appKey: try check(bearer, nil).appKey, token: nil))
            }
            let access = try check(nil, bearer)
            return .success(Credential(appKey: access.appKey, token: bearer))
        } catch {
            switch error {
            case .unknownAppKey:
                return .failure(unknownAppKey)
            case .token(let refusal):
                return .failure(WHIPError(status: 401, message: refusal.message, reason: refusal.reason,
                                          headers: [("www-authenticate", challengeInvalid)]))
            }
        }
    }

    static let unknownAppKey = WHIPError(status: 401, message: "Unknown app key", reason: "UNKNOWN_APP_KEY",
                                         headers: [("www-authenticate", challengeInvalid)])
}

/// WHEP's query parameters as `play` constraints: `quality`, `width`, `height`, `fps` and
/// `bitrate` go into `video`; `audio` and `video` take `true` or `false`. Other parameters
/// are ignored, and the last of a repeated one counts.
enum WHEPQuery {
    static let videoNumbers = ["width", "height", "fps", "bitrate"]

    /// The constraints object `play` takes, or nil when the query sets none.
    static func constraints(_ items: [(name: String, value: String)]) throws(WHIPError) -> JSONValue? {
        var video = JSONObject()
        var videoFlag: Bool?
        var audioFlag: Bool?
        for (name, value) in items {
            switch name {
            case "quality":
                let given: JSONValue = Int64(value).map { JSONValue($0) } ?? .string(value)
                do {
                    _ = try ConstraintsParser.quality(given)
                } catch {
                    throw .badRequest("Query parameter 'quality' must be auto, high, medium, low or an integer from 1 to 100, not '\(value)'")
                }
                video["quality"] = given
            case let number where videoNumbers.contains(number):
                guard value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                      let parsed = Int64(value), (1...ConstraintsParser.largestValue).contains(parsed) else {
                    throw .badRequest("Query parameter '\(name)' must be an integer from 1 to \(ConstraintsParser.largestValue), not '\(value)'")
                }
                video[name] = JSONValue(parsed)
            case "audio", "video":
                guard let flag = ["true": true, "false": false][value.lowercased()] else {
                    throw .badRequest("Query parameter '\(name)' must be true or false, not '\(value)'")
                }
                if name == "audio" { audioFlag = flag } else { videoFlag = flag }
            default:
                continue
            }
        }
        var constraints = JSONObject()
        if let audioFlag { constraints["audio"] = .bool(audioFlag) }
        if videoFlag == false {
            guard video.isEmpty else { throw .badRequest("Query parameter 'video=false' leaves no video to constrain") }
            constraints["video"] = false
        } else if !video.isEmpty {
            constraints["video"] = .object(video)
        } else if videoFlag == true {
            constraints["video"] = true
        }
        guard !constraints.isEmpty else { return nil }
        let value = JSONValue.object(constraints)
        do {
            _ = try ConstraintsParser.parse(value)
        } catch {
            throw .badRequest(error.message)
        }
        return value
    }
}
