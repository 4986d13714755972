import SluiceSignaling
import Testing
@testable import SluiceServer

/// `apps[].startBitrate` in the config (docs/config.md's table).
@Suite struct StartBitrateConfigTests {
    @Test func onWithoutADefaultUnlessSet() throws {
        let plain = try #require(try parseConfig(#"{"apps": [{"key": "a"}]}"#).apps.first)
        #expect(plain.startBitrateEnabled && plain.startBitrateDefaultKbps == nil)
        #expect(Server.signalingApp(plain).startBitrate == StartBitrate(enabled: true, defaultKbps: nil))
        let set = try #require(try parseConfig(
            #"{"apps": [{"key": "a", "startBitrate": {"enabled": true, "defaultKbps": 2500}}]}"#).apps.first)
        #expect(Server.signalingApp(set).startBitrate == StartBitrate(enabled: true, defaultKbps: 2500))
        let off = try #require(try parseConfig(#"{"apps": [{"key": "a", "startBitrate": {"enabled": false}}]}"#).apps.first)
        #expect(Server.signalingApp(off).startBitrate == StartBitrate(enabled: false, defaultKbps: nil))
        #expect(try parseConfig("{}").apps.first?.startBitrateEnabled == true)
    }

    @Test(arguments: [
        (#"{"apps": [{"key": "a", "startBitrate": 2500}]}"#, "apps[0].startBitrate", "must be an object"),
        (#"{"apps": [{"key": "a", "startBitrate": {"enabled": "yes"}}]}"#, "apps[0].startBitrate.enabled", "true or false"),
        (#"{"apps": [{"key": "a", "startBitrate": {"defaultKbps": 10}}]}"#, "apps[0].startBitrate.defaultKbps", "between 30 and 100000"),
        (#"{"apps": [{"key": "a", "startBitrate": {"defaultKbps": 100001}}]}"#, "apps[0].startBitrate.defaultKbps", "between"),
        (#"{"apps": [{"key": "a", "startBitrate": {"defaultKbps": 2500.5}}]}"#, "apps[0].startBitrate.defaultKbps", "integer"),
        (#"{"apps": [{"key": "a", "startBitrate": {"kbps": 2500}}]}"#, "apps[0].startBitrate.kbps", "not a known setting"),
    ])
    func badValuesNameTheKey(text: String, key: String, problem: String) throws {
        try expectConfigError(text, key: key, problem: problem)
    }
}
