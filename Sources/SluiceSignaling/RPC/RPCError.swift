import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// A JSON-RPC error object: the standard codes and docs/protocol.md section 5.
public struct RPCError: Error, Equatable, Sendable {
    public var code: Int
    public var message: String
    /// `data.reason` of application errors.
    public var reason: String?

    public init(code: Int, message: String, reason: String? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
    }

    public var json: JSONValue {
        var object: JSONObject = ["code": JSONValue(code), "message": .string(message)]
        if let reason { object["data"] = ["reason": .string(reason)] }
        return .object(object)
    }
}

extension RPCError {
    public static func parseError(_ detail: String) -> RPCError {
        RPCError(code: -32700, message: "Parse error: \(detail)")
    }

    public static func invalidRequest(_ detail: String) -> RPCError {
        RPCError(code: -32600, message: "Invalid request: \(detail)")
    }

    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(code: -32601, message: "Method not found: '\(method)'")
    }

    /// `detail` names the field: "'sdp' must be a string".
    public static func invalidParams(_ detail: String) -> RPCError {
        RPCError(code: -32602, message: "Invalid params: \(detail)")
    }

    public static func internalError(_ detail: String) -> RPCError {
        RPCError(code: -32603, message: "Internal error: \(detail)")
    }

    public static let notConnected = RPCError(code: 1000, message: "Call connect first", reason: "NOT_CONNECTED")
    public static let unknownAppKey = RPCError(code: 1001, message: "Unknown app key", reason: "UNKNOWN_APP_KEY")
    public static let restrictedAccess = RPCError(code: 1002, message: "Restricted access", reason: "RESTRICTED_ACCESS")
    public static let unknownHandle = RPCError(code: 1007, message: "Unknown handle", reason: "UNKNOWN_HANDLE")
    /// 1013: the cluster's stream names cannot be checked (Redis unreachable), so a publish is
    /// refused rather than made on this node alone, where its name could collide later.
    public static let clusterUnavailable = RPCError(code: 1013, message: "Cluster state unavailable",
                                                    reason: "CLUSTER_UNAVAILABLE")
    /// 1017: the server drains for a restart (SIGTERM or `POST /api/v1/drain`): no new sessions,
    /// streams or players; those it has go on until they end or the drain's deadline.
    public static let serverDraining = RPCError(code: 1017, message: "The server is draining: connect to another",
                                                reason: "SERVER_DRAINING")
    public static let rateLimitExceeded = RPCError(code: 1008, message: "Rate limit exceeded", reason: "LIMIT_REACHED")

    /// 1011: the access token was refused; `reason` tells why.
    public init(_ error: AccessTokenError) {
        self.init(code: 1011, message: error.message, reason: error.reason)
    }

    /// 1012: outside the token's grants. `what`: "publish of 'cam1'".
    public static func notGranted(_ what: String) -> RPCError {
        RPCError(code: 1012, message: "Not granted by the token: \(what)", reason: "NOT_GRANTED")
    }

    public static func limitReached(_ what: String) -> RPCError {
        RPCError(code: 1008, message: "Limit reached: \(what)", reason: "LIMIT_REACHED")
    }

    /// The mapping of the engine's errors to docs/protocol.md section 5.
    public init(_ error: MediaError) {
        switch error {
        case .streamNameInUse:
            self.init(code: 1003, message: StatusInfo.streamNameInUse, reason: "STREAM_NAME_IN_USE")
        case .streamNotFound:
            self.init(code: 1004, message: StatusInfo.streamNotFound, reason: "STREAM_NOT_FOUND")
        case .noCommonCodecs:
            self.init(code: 1005, message: StatusInfo.noCommonCodecs, reason: "NO_COMMON_CODECS")
        case .badSDP(let line):
            self.init(code: 1006, message: "Malformed or unsupported SDP: \(line)", reason: "BAD_SDP")
        case .unknownHandle:
            self = .unknownHandle
        case .limitReached(let what):
            self = .limitReached(what)
        case .constraintsExceedLimits:
            self.init(code: 1009, message: StatusInfo.constraintsExceedLimits, reason: "CONSTRAINTS_EXCEED_LIMITS")
        case .wrongRole:
            self.init(code: 1010, message: "The handle does not support this method", reason: "WRONG_ROLE")
        case .restrictedAccess:
            self = .restrictedAccess
        case .clusterUnavailable:
            self = .clusterUnavailable
        }
    }
}
