/// One stream's audio level as the speaker followers see it: measured on the node that
/// publishes it, this one's (`MediaEvent.audioLevel`) or another's (`SpeakerHandler.remoteLevels`).
public struct SpeakerLevel: Sendable, Equatable {
    public var stream: String
    /// The smoothed level (what `activeSpeakers` shows), dBov, -127 (silence) to 0.
    public var level: Double
    /// The last 100 ms window's mean: whether there is voice now (what the detector reads).
    public var voice: Double
    /// Muted by its publisher or the server: never speaking.
    public var muted: Bool

    public init(stream: String, level: Double, voice: Double, muted: Bool) {
        self.stream = stream
        self.level = level
        self.voice = voice
        self.muted = muted
    }
}
