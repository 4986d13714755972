import SluiceSignaling
import Testing
@testable import SluiceServer

/// `apps[].dynacast` in the config (docs/config.md's table): on unless set to false.
@Suite struct DynacastConfigTests {
    @Test func onUnlessSetOff() throws {
        let plain = try #require(try parseConfig(#"{"apps": [{"key": "a"}]}"#).apps.first)
        #expect(plain.dynacast && Server.signalingApp(plain).dynacast)
        let off = try #require(try parseConfig(#"{"apps": [{"key": "a", "dynacast": false}]}"#).apps.first)
        #expect(!off.dynacast && !Server.signalingApp(off).dynacast)
    }

    @Test func aBadValueNamesTheKey() throws {
        try expectConfigError(#"{"apps": [{"key": "a", "dynacast": 1}]}"#, key: "apps[0].dynacast", problem: "true or false")
    }
}
