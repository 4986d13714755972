/// One stream's audio level as the speaker followers see it: measured on the node that
/// publishes it, this one's (`MediaEvent.audioLevel`) or another's (`SpeakerHandler.remoteLevels`).
public struct SpeakerLevel: Sendable, Equatable {
    public var stream: String
    /// dBov, -127 (silence) to 0.
    public var level: Double
    /// Muted by its publisher or the server: never speaking.
    public var muted: Bool

    public init(stream: String, level: Double, muted: Bool) {
        self.stream = stream
        self.level = level
        self.muted = muted
    }
}
