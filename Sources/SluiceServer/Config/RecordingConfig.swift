import SluiceJSON
import SluiceMedia
import SluiceRecord

/// `recording` (docs/recording.md, "Using it"): absent, the server records nothing and refuses
/// `record: true`. The folder is made at start; one that cannot be written stops the start.
enum RecordingConfig {
    static func parse(_ value: JSONValue, key: String) throws(ConfigError) -> RecordingSettings {
        let reader = try ConfigReader(value, path: key, known: ["folder", "template", "jitterMs", "layer"])
        let folder = try reader.string("folder", default: "")
        guard !folder.isEmpty else {
            throw ConfigError(key: "\(key).folder", problem: "is required when \(key) is set: the folder recordings go to")
        }
        let template = try reader.string("template", default: RecordingSettings.defaultTemplate)
        guard !template.isEmpty, !template.hasPrefix("/"), !template.split(separator: "/").contains("..") else {
            throw ConfigError(key: "\(key).template",
                              problem: "must be a relative path inside the folder, such as \"{app}/{stream}/{start}\", not \"\(template)\"")
        }
        let jitter = try reader.int("jitterMs", default: 200, range: 0...2000)
        let layer = try reader.string("layer", default: RecordedLayer.top.rawValue,
                                      allowed: Set(RecordedLayer.allCases.map(\.rawValue)))
        return RecordingSettings(folder: folder, template: template, jitterMillis: jitter,
                                 layer: RecordedLayer(rawValue: layer) ?? .top)
    }
}
