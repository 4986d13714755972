/// `apps[].recording`: which of an app's publishes are recorded (docs/protocol.md section 6,
/// **Recording**). The server records only with `recording.folder` set.
public enum AppRecording: String, Sendable, Equatable, CaseIterable {
    /// A publish with `record: true` is recorded (with a token, one that grants `record`).
    case request
    /// Every publish is recorded, whatever it asks: the app's operator decides, not the client.
    case always
    /// No publish is: `record: true` gets 1008.
    case off

    /// The 1008 message for `record: true` under `off`.
    static func offMessage(app: String) -> String { "Recording is off for app \(app)" }
}
