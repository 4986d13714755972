import SluiceVocabulary

/// What the engine tells the control plane, in order per handle.
public enum MediaEvent: Sendable {
    /// `ends` is true when the handle is gone after this status.
    case streamStatus(session: SessionID, handle: StreamHandle, stream: String, role: StreamRole,
                      status: StreamStatus, info: String?, ends: Bool)
    /// `data` holds only JSON-friendly values: String, Int, Double, Bool.
    case streamEvent(session: SessionID, handle: StreamHandle, stream: String, type: String,
                     by: String?, data: [String: StreamEventValue])
    /// A pre-call test's `streamEvent` (it has no stream); `ends` when the handle is gone after it.
    case precall(session: SessionID, handle: StreamHandle, type: String, data: [String: StreamEventValue], ends: Bool)
    /// A recording started, stopped or failed: for the app's hooks. It comes whether or not
    /// the publisher is still there (a file is closed after its publisher left); the
    /// publisher's own `streamEvent` of the same type comes as well while its handle lasts.
    case recording(RecordingNotice)
    /// A stream published here: its smoothed audio level and its last window's mean (its
    /// voice), in dBov (nil when only its mute changed), and whether its audio is muted (by
    /// its publisher or the server), for the sessions that follow speakers. Every 100 ms near
    /// speech, as it moves, once a second else.
    case audioLevel(stream: String, level: (smoothed: Double, voice: Double)?, muted: Bool)
}

/// A recording's event as hooks report it (docs/protocol.md section 4).
public struct RecordingNotice: Sendable, Equatable {
    public var session: SessionID
    public var handle: StreamHandle
    public var stream: String
    public var appKey: String
    /// `recordingStarted`, `recordingStopped` or `recordingFailed`.
    public var type: String
    public var data: [String: StreamEventValue]

    public init(session: SessionID, handle: StreamHandle, stream: String, appKey: String, type: String,
                data: [String: StreamEventValue]) {
        self.session = session
        self.handle = handle
        self.stream = stream
        self.appKey = appKey
        self.type = type
        self.data = data
    }
}
