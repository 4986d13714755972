/// An app's status callbacks (docs/protocol.md section 4): where they go and how they are signed.
public struct HookSettings: Sendable, Equatable {
    /// `http://` or `https://host[:port][/path]`; each event is POSTed to `{url}/{event}`.
    public var url: String
    /// Signs every body (`X-Sluice-Signature`); without it the header is left out.
    public var secret: String?
    /// How long an authorizing hook may take before the request is refused.
    public var timeoutMs: Int
    /// PEM CA certificates an `https://` url is verified against; nil: the system's store.
    public var caFile: String?

    public init(url: String, secret: String?, timeoutMs: Int = 5000, caFile: String? = nil) {
        self.url = url
        self.secret = secret
        self.timeoutMs = timeoutMs
        self.caFile = caFile
    }

    /// Nil when `caFile` holds PEM CA certificates the hook client can use; else the problem.
    public static func problem(withCAFile caFile: String) -> String? {
        HookTLSContext.problem(withCAFile: caFile)
    }

    /// `{url}/{event}`, without a doubled slash.
    func endpoint(for event: HookEvent) -> String {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/" + event.rawValue
    }
}

/// The hook events of docs/protocol.md section 4, named as in the URL.
public enum HookEvent: String, Sendable, CaseIterable {
    case connect
    case publishStream
    case playStream
    case streamStatus
    case streamEvent
    case disconnect
    case recordingStarted
    case recordingStopped
    case recordingFailed
    case callStarted
    case callStatus
    case callEnded

    /// Whether the request waits for the backend's verdict (a non-2xx reply refuses it).
    public var authorizes: Bool {
        switch self {
        case .connect, .publishStream, .playStream: return true
        case .streamStatus, .streamEvent, .disconnect, .recordingStarted, .recordingStopped, .recordingFailed,
             .callStarted, .callStatus, .callEnded:
            return false
        }
    }
}
