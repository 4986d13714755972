/// What a closed recording holds: what the `recordingStopped` hook reports.
public struct RecordingSummary: Sendable, Equatable {
    /// The final path (no `.part`).
    public var path: String
    /// The end of the last frame on the shared timeline (ms): the last timestamp of either
    /// track, plus the last Opus packet's own duration when audio ends last.
    public var durationMillis: Int64
    /// The file's size after the trailer.
    public var bytes: Int64
    public var videoFrames: Int
    public var audioFrames: Int
}
