import SluiceMedia

/// `recording`: where the recorder writes and how long it waits for repairs (docs/recording.md,
/// "Using it"). Absent from the config: recording is off, and `record: true` is refused.
public struct RecordingSettings: Sendable, Equatable {
    /// `recording.folder`: the root of every file; made at start if it is missing.
    public var folder: String
    /// `recording.template`: the path under the folder, without the extension. `{app}`,
    /// `{stream}` and `{start}` (UTC, `20261201T101500Z`) are replaced.
    public var template: String
    /// `recording.jitterMs`: how long an incomplete frame waits for NACK repairs.
    public var jitterMillis: Int
    /// `recording.layer`: the simulcast layer recorded, by size rank.
    public var layer: RecordedLayer

    public static let defaultTemplate = "{app}/{stream}/{start}"

    public init(folder: String, template: String = RecordingSettings.defaultTemplate, jitterMillis: Int = 200,
                layer: RecordedLayer = .top) {
        self.folder = folder
        self.layer = layer
        self.template = template
        self.jitterMillis = jitterMillis
    }
}
