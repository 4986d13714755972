/// One signed hook POST, ready to send.
public struct HookRequest: Sendable, Equatable {
    public var event: HookEvent
    /// `{url}/{event}`.
    public var url: String
    /// The exact bytes that were signed.
    public var body: [UInt8]
    /// `X-Sluice-Signature` and `Content-Type`, in that order.
    public var headers: [(name: String, value: String)]
    public var timeoutMs: Int
    /// For an `https://` url: PEM CA certificates to verify the backend against instead of
    /// the system's store (`hooks.caFile`).
    public var caFile: String?

    public init(event: HookEvent, url: String, body: [UInt8], headers: [(name: String, value: String)], timeoutMs: Int,
                caFile: String? = nil) {
        self.event = event
        self.url = url
        self.body = body
        self.headers = headers
        self.timeoutMs = timeoutMs
        self.caFile = caFile
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public static func == (lhs: HookRequest, rhs: HookRequest) -> Bool {
        lhs.event == rhs.event && lhs.url == rhs.url && lhs.body == rhs.body && lhs.timeoutMs == rhs.timeoutMs
            && lhs.caFile == rhs.caFile
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}

/// How a hook POST ended.
public enum HookOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The backend answered with this HTTP status.
    case status(Int)
    /// No answer within the request's `timeoutMs`.
    case timedOut
    /// Could not connect, or the connection broke.
    case failed(String)

    /// Only a 2xx answer lets an authorizing hook's request go on.
    public var allows: Bool {
        if case .status(let code) = self { return (200...299).contains(code) }
        return false
    }

    public var description: String {
        switch self {
        case .status(let code): return "HTTP \(code)"
        case .timedOut: return "no answer in time"
        case .failed(let why): return "failed (\(why))"
        }
    }
}

/// Sends hook POSTs. `SessionManager` tests inject a fake, so they need no sockets.
public protocol HookTransport: AnyObject, Sendable {
    /// Starts one POST and returns at once. Calls `completion` exactly once, from any
    /// thread, at the latest about `request.timeoutMs` after the call (`.timedOut`).
    func post(_ request: HookRequest, completion: @escaping @Sendable (HookOutcome) -> Void)
}
