import SluiceDataChannel
import SluiceSignaling
import Testing
@testable import SluiceServer

/// `apps[].dataChannels` in the config (docs/config.md's table).
@Suite struct DataChannelConfigTests {
    @Test func onWithDefaultsUnlessSet() throws {
        let config = try parseConfig(#"{"apps": [{"key": "a"}, {"key": "b", "dataChannels": {"enabled": false}}, "#
                                     + #"{"key": "c", "dataChannels": {"playersReachPlayers": true, "messagesPerSecond": 0, "bytesPerSecond": 5000}}]}"#)
        #expect(config.apps[0].dataChannels == DataChannelPolicy())
        #expect(config.apps[1].dataChannels == nil)
        #expect(config.apps[2].dataChannels == DataChannelPolicy(playersReachPlayers: true, messagesPerSecond: 0, bytesPerSecond: 5000))
        #expect(config.apps.map { Server.signalingApp($0).dataChannels } == config.apps.map(\.dataChannels))
    }

    @Test(arguments: [
        (#"{"apps": [{"key": "a", "dataChannels": {"enabled": "yes"}}]}"#, "apps[0].dataChannels.enabled", "must be true or false"),
        (#"{"apps": [{"key": "a", "dataChannels": {"messagesPerSecond": -1}}]}"#, "apps[0].dataChannels.messagesPerSecond", "must be"),
        (#"{"apps": [{"key": "a", "dataChannels": {"rate": 5}}]}"#, "apps[0].dataChannels.rate", "is not a known setting"),
        (#"{"apps": [{"key": "a", "dataChannels": 3}]}"#, "apps[0].dataChannels", "must be an object"),
    ])
    func badValuesNameTheKey(text: String, key: String, problem: String) throws {
        try expectConfigError(text, key: key, problem: problem)
    }
}
