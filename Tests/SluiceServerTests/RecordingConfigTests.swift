import SluiceSignaling
import Testing
@testable import SluiceServer

/// `recording` and `apps[].recording` in the config (docs/config.md's table).
@Suite struct RecordingConfigTests {
    @Test func appsRecordOnRequestUnlessSet() throws {
        let folder = #""recording": {"folder": "/tmp/sluice-recording-config-test"}"#
        let config = try parseConfig(#"{"apps": [{"key": "a"}, {"key": "b", "recording": "always"}, {"key": "c", "recording": "off"}], "#
                                     + folder + "}")
        #expect(config.apps.map(\.recording) == [.request, .always, .off])
        #expect(config.apps.map { Server.signalingApp($0).recording } == [.request, .always, .off])
        #expect(try parseConfig("{}").apps.first?.recording == .request)
        #expect(config.recording?.layer == .top)
        let low = try parseConfig(#"{"recording": {"folder": "/tmp/sluice-recording-config-test", "layer": "low"}}"#)
        #expect(low.recording?.layer == .low)
    }

    @Test(arguments: [
        (#"{"apps": [{"key": "a", "recording": "sometimes"}]}"#, "apps[0].recording", "must be one of"),
        (#"{"apps": [{"key": "a", "recording": true}]}"#, "apps[0].recording", "must be a string"),
        (#"{"apps": [{"key": "a"}, {"key": "b", "recording": "always"}]}"#, "apps[1].recording", "needs recording.folder"),
        (#"{"recording": {}}"#, "recording.folder", "is required"),
        (#"{"recording": {"folder": "/tmp/x", "layer": 2}}"#, "recording.layer", "must be a string"),
        (#"{"recording": {"folder": "/tmp/x", "layer": "best"}}"#, "recording.layer", "must be one of"),
        (#"{"recording": {"folder": "/tmp/x", "template": "../{stream}"}}"#, "recording.template", "relative path"),
    ])
    func badValuesNameTheKey(text: String, key: String, problem: String) throws {
        try expectConfigError(text, key: key, problem: problem)
    }
}
