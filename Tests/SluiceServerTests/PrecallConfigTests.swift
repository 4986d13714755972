import SluiceSignaling
import Testing
@testable import SluiceServer

/// `apps[].precall` in the config (docs/config.md's table).
@Suite struct PrecallConfigTests {
    @Test func onWithDefaultsUnlessSet() throws {
        let config = try parseConfig(#"{"apps": [{"key": "a"}, {"key": "b", "precall": {"enabled": false}}, "#
                                     + #"{"key": "c", "precall": {"perMinute": 2, "seconds": 10, "maxKbps": 3000}}]}"#)
        #expect(config.apps[0].precall == PrecallPolicy())
        #expect(config.apps[1].precall == nil)
        #expect(config.apps[2].precall == PrecallPolicy(perMinute: 2, seconds: 10, maxKbps: 3000))
        #expect(config.apps.map { Server.signalingApp($0).precall } == config.apps.map(\.precall))
    }

    @Test(arguments: [
        (#"{"apps": [{"key": "a", "precall": {"seconds": 11}}]}"#, "apps[0].precall.seconds", "must be"),
        (#"{"apps": [{"key": "a", "precall": {"perMinute": 0}}]}"#, "apps[0].precall.perMinute", "must be"),
        (#"{"apps": [{"key": "a", "precall": {"maxKbps": 100}}]}"#, "apps[0].precall.maxKbps", "must be"),
        (#"{"apps": [{"key": "a", "precall": {"enabled": 1}}]}"#, "apps[0].precall.enabled", "must be true or false"),
        (#"{"apps": [{"key": "a", "precall": {"rate": 5}}]}"#, "apps[0].precall.rate", "is not a known setting"),
    ])
    func badValuesNameTheKey(text: String, key: String, problem: String) throws {
        try expectConfigError(text, key: key, problem: problem)
    }
}
