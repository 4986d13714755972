/// What the recorder tells the control plane about one recording (by its id), from the
/// recorder thread; the control plane turns it into the publisher's `streamEvent`s and hooks.
public enum RecordingEvent: Sendable, Equatable {
    /// The first frame is in the file.
    case started(id: String, path: String)
    /// The file is closed and has its final name.
    case stopped(id: String, summary: RecordingSummaryFigures)
    /// The recording ended early; the stream goes on.
    case failed(id: String, path: String, reason: FailureReason, message: String)
    /// The recording is over: its ring is drained and its last file closed (or it never
    /// opened one: the publisher left before a key frame). Always the recording's last
    /// event; an MP4 resize gives `stopped` then `started` (the next segment) before it.
    case ended(id: String)

    public enum FailureReason: String, Sendable {
        case diskFull = "DISK_FULL"
        case writeError = "WRITE_ERROR"
    }
}

/// A closed recording's figures, as events and hooks report them.
public struct RecordingSummaryFigures: Sendable, Equatable {
    public var path: String
    public var durationMillis: Int64
    public var bytes: Int64
    /// `vp8`, `vp8+opus`, `opus`...: the tracks' codecs.
    public var codec: String
    /// Packets the server had were dropped before the recorder got them (a full queue): the
    /// file misses what players got. Loss on the publisher's path is not damage; the file
    /// skips those frames as a player would.
    public var damaged: Bool

    public init(path: String, durationMillis: Int64, bytes: Int64, codec: String, damaged: Bool) {
        self.path = path
        self.durationMillis = durationMillis
        self.bytes = bytes
        self.codec = codec
        self.damaged = damaged
    }
}
