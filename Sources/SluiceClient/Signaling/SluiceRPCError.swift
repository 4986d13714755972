/// An error the server answered a request with (docs/protocol.md section 1 and 5): the JSON-RPC
/// `code` and `message`, and the application `reason` from `data.reason` when there is one.
public struct SluiceRPCError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: Int
    public var message: String
    /// `data.reason`, e.g. "UNKNOWN_APP_KEY"; nil for the standard JSON-RPC errors.
    public var reason: String?
    /// The whole `data` member, when present.
    public var data: JSONValue?

    public init(code: Int, message: String, reason: String? = nil, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
        self.data = data
    }

    /// From a response's `error` member; nil when it is not an object with an integer code.
    init?(errorMember error: JSONValue) {
        guard let code = error["code"]?.intValue.flatMap({ Int(exactly: $0) }) else { return nil }
        let data = error["data"]
        self.init(code: code, message: error["message"]?.stringValue ?? "",
                  reason: data?["reason"]?.stringValue, data: data)
    }

    public var description: String {
        "\(code) \(message)" + (reason.map { " (\($0))" } ?? "")
    }

    /// The error codes of docs/protocol.md.
    public enum Code {
        public static let parseError = -32700
        public static let invalidRequest = -32600
        public static let methodNotFound = -32601
        public static let invalidParams = -32602
        public static let internalError = -32603
        public static let notConnected = 1000
        public static let unknownAppKey = 1001
        public static let restrictedAccess = 1002
        public static let streamNameInUse = 1003
        public static let streamNotFound = 1004
        public static let noCommonCodecs = 1005
        public static let badSDP = 1006
        public static let unknownHandle = 1007
        public static let limitReached = 1008
        public static let constraintsExceedLimits = 1009
        public static let wrongRole = 1010
        /// The server drains for a restart: connect to another (`SluiceNotification.serverDraining`).
        public static let serverDraining = 1017
    }
}

/// The connection to the server failed, closed, or answered something that is not JSON-RPC.
public enum SignalingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL is not one this client can open (scheme, host or port).
    case unsupportedURL(String)
    /// TCP connect, send or receive failed.
    case socket(String)
    /// The HTTP upgrade was refused or its answer was wrong.
    case handshakeFailed(String)
    /// A request was made before `open()` succeeded.
    case notOpen
    /// The WebSocket closed; `code` is the close code when the server sent one.
    case closed(code: UInt16?, reason: String)
    /// No response to `method` within the session's request timeout.
    case timedOut(method: String)
    /// A response the client cannot read.
    case malformedResponse(String)

    public var description: String {
        switch self {
        case .unsupportedURL(let url): return "unsupported URL: \(url)"
        case .socket(let message): return "socket: \(message)"
        case .handshakeFailed(let message): return "WebSocket handshake failed: \(message)"
        case .notOpen: return "the signaling connection is not open"
        case .closed(let code, let reason): return "closed (\(code.map(String.init) ?? "no code")) \(reason)"
        case .timedOut(let method): return "no response to \(method)"
        case .malformedResponse(let message): return "malformed response: \(message)"
        }
    }
}
