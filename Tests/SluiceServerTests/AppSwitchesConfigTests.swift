import SluiceSignaling
import Testing
@testable import SluiceServer

/// The apps' on/off switches in the config (docs/config.md's table): `instantJoin`,
/// `dynacast` and `red`, each on unless set to false, and carried to signaling.
@Suite struct AppSwitchesConfigTests {
    struct Switch: Sendable, CustomTestStringConvertible {
        var key: String
        var read: @Sendable (ServerConfig.App) -> Bool
        var signaling: @Sendable (SignalingConfig.App) -> Bool
        var testDescription: String { key }
    }

    static let switches = [
        Switch(key: "instantJoin", read: { $0.instantJoin }, signaling: { $0.instantJoin }),
        Switch(key: "dynacast", read: { $0.dynacast }, signaling: { $0.dynacast }),
        Switch(key: "red", read: { $0.red }, signaling: { $0.red }),
    ]

    @Test(arguments: switches)
    func onUnlessSetOff(_ flag: Switch) throws {
        let plain = try #require(try parseConfig(#"{"apps": [{"key": "a"}]}"#).apps.first)
        #expect(flag.read(plain) && flag.signaling(Server.signalingApp(plain)))
        let off = try #require(try parseConfig(#"{"apps": [{"key": "a", "\#(flag.key)": false}]}"#).apps.first)
        #expect(!flag.read(off) && !flag.signaling(Server.signalingApp(off)))
        #expect(try parseConfig("{}").apps.first.map(flag.read) == true)
    }

    @Test(arguments: switches)
    func badValuesNameTheKey(_ flag: Switch) throws {
        for value in [#""yes""#, #"{"enabled": true}"#, "1"] {
            try expectConfigError(#"{"apps": [{"key": "a", "\#(flag.key)": \#(value)}]}"#, key: "apps[0].\(flag.key)",
                                  problem: "true or false")
        }
    }
}
