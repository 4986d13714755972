import SluiceSignaling
import Testing
@testable import SluiceServer

/// `apps[].instantJoin` in the config (docs/config.md's table): on unless set to false.
@Suite struct InstantJoinConfigTests {
    @Test func onUnlessSetOff() throws {
        let plain = try #require(try parseConfig(#"{"apps": [{"key": "a"}]}"#).apps.first)
        #expect(plain.instantJoin && Server.signalingApp(plain).instantJoin)
        let off = try #require(try parseConfig(#"{"apps": [{"key": "a", "instantJoin": false}]}"#).apps.first)
        #expect(!off.instantJoin && !Server.signalingApp(off).instantJoin)
        #expect(try parseConfig("{}").apps.first?.instantJoin == true)
    }

    @Test(arguments: [
        (#"{"apps": [{"key": "a", "instantJoin": "yes"}]}"#, "apps[0].instantJoin", "true or false"),
        (#"{"apps": [{"key": "a", "instantJoin": {"enabled": true}}]}"#, "apps[0].instantJoin", "true or false"),
    ])
    func badValuesNameTheKey(text: String, key: String, problem: String) throws {
        try expectConfigError(text, key: key, problem: problem)
    }
}
