/// One call as the call log keeps it (docs/protocol.md section 6, "Calls"). Times are
/// milliseconds since the epoch.
public struct CallRecord: Sendable, Equatable {
    public var callID: String
    public var appKey: String
    public var caller: String
    public var callee: String
    public var video: Bool
    public var audio: Bool
    /// The caller's `custom` object as compact JSON text (`{}` when it gave none): the log
    /// keeps it as given, and knows no JSON.
    public var customJSON: String
    public var startedAt: Int64
    /// When the callee accepted; nil while it rings, or when it never did.
    public var answeredAt: Int64?
    /// Nil while the call lasts.
    public var endedAt: Int64?
    /// From `answeredAt` to `endedAt`; 0 when never accepted or not yet ended.
    public var durationMs: Int64
    /// `CallEndResult.rawValue`; nil while the call lasts.
    public var endResult: String?
    /// The user who ended it; nil when nobody did (timeout, lost connection, busy, ...).
    public var endedBy: String?

    public init(callID: String, appKey: String, caller: String, callee: String, video: Bool, audio: Bool,
                customJSON: String = "{}", startedAt: Int64, answeredAt: Int64? = nil, endedAt: Int64? = nil,
                durationMs: Int64 = 0, endResult: String? = nil, endedBy: String? = nil) {
        self.callID = callID
        self.appKey = appKey
        self.caller = caller
        self.callee = callee
        self.video = video
        self.audio = audio
        self.customJSON = customJSON
        self.startedAt = startedAt
        self.answeredAt = answeredAt
        self.endedAt = endedAt
        self.durationMs = durationMs
        self.endResult = endResult
        self.endedBy = endedBy
    }
}
