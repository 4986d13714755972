import Foundation
import SluiceJSON
import Testing
@testable import SluiceServer

struct ServerConfigTests {
    private func parse(_ text: String) throws -> ServerConfig {
        try parseConfig(text)
    }

    @Test func defaultConfigFileIsValidAndLoopbackOnly() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let config = try ServerConfig.load(path: root.appendingPathComponent("conf/sluice.json").path)
        #expect(config.httpHost == "127.0.0.1")
        #expect(config.httpPort == 8080)
        #expect(config.announcedAddresses == ["127.0.0.1"])
        #expect(config.rtcBindAddress == "127.0.0.1")
        #expect(config.apps.map(\.key) == ["defaultApp"])
        #expect(config.logLevel == "info")
        #expect(config.maxMessageBytes == 262_144)
        #expect(config.requestsPerSecond == 50)
    }

    @Test func emptyObjectGivesDefaults() throws {
        let config = try parse("{}")
        #expect(config.httpPort == 8080)
        #expect(config.rtcPort == 10000)
        #expect(config.iceConsentTimeoutSeconds == 10)
        // ICE-TCP on by default, on the UDP port numbers.
        #expect(config.tcpPortOrNil == 10000)
    }

    @Test func logFormatAndDrainSeconds() throws {
        let defaults = try parse("{}")
        #expect(defaults.logFormat == "text" && defaults.drainSeconds == 30)
        let set = try parse(#"{"log": {"format": "json"}, "server": {"drainSeconds": 5}}"#)
        #expect(set.logFormat == "json" && set.drainSeconds == 5)
    }

    @Test func tcpPortFollowsThePortUnlessSetOrTurnedOff() throws {
        #expect(try parse(#"{"rtc": {"port": 20000}}"#).tcpPortOrNil == 20000)
        #expect(try parse(#"{"rtc": {"port": 20000, "tcpPort": 443}}"#).tcpPortOrNil == 443)
        #expect(try parse(#"{"rtc": {"tcpPort": 0}}"#).tcpPortOrNil == nil)
    }

    /// Each bad config names the key and says what is wrong.
    @Test(arguments: [
        (#"{"server": {"port": "8080"}}"#, "server.port", "must be an integer"),
        (#"{"server": {"port": 70000}}"#, "server.port", "between 1 and 65535"),
        (#"{"server": {"hots": "127.0.0.1"}}"#, "server.hots", "not a known setting"),
        (#"{"rtc": {"announcedAddresses": []}}"#, "rtc.announcedAddresses", "at least one"),
        (#"{"rtc": {"announcedAddresses": ["nowhere"]}}"#, "rtc.announcedAddresses[0]", "IPv4 or IPv6"),
        (#"{"rtc": {"bindAddress": 5}}"#, "rtc.bindAddress", "must be a string"),
        (#"{"rtc": {"tcpPort": 70000}}"#, "rtc.tcpPort", "between 0 and 65535"),
        (#"{"rtc": {"tcpPort": 65535, "workers": 2}}"#, "rtc.tcpPort", "no room"),
        (#"{"server": {"port": 10001}, "rtc": {"workers": 2}}"#, "rtc.tcpPort", "include server.port 10001"),
        (#"{"server": {"port": 9000}, "rtc": {"tcpPort": 9000, "workers": 1}}"#, "rtc.tcpPort", "include server.port"),
        (#"{"apps": []}"#, "apps", "non-empty array"),
        (#"{"apps": [{"key": ""}]}"#, "apps[0].key", "non-empty string"),
        (#"{"apps": [{"key": "a"}, {"key": "a"}]}"#, "apps[1].key", "repeats"),
        (#"{"apps": [{"key": "a", "hooks": {"url": "ftp://x"}}]}"#, "apps[0].hooks.url", "http://"),
        (#"{"log": {"level": "loud"}}"#, "log.level", "must be one of"),
        (#"{"log": {"format": "xml"}}"#, "log.format", "must be one of"),
        (#"{"server": {"drainSeconds": -1}}"#, "server.drainSeconds", "between 0 and 86400"),
        (#"{"apps": [{"key": "a", "limits": {"maxBitrateKbps": 0}}]}"#, "apps[0].limits.maxBitrateKbps", "between"),
        (#"{"apps": [{"key": "a", "limits": {"maxBitrate": 5}}]}"#, "apps[0].limits.maxBitrate", "not a known setting"),
        (#"{"limits": {"maxMessageBytes": 10}}"#, "limits.maxMessageBytes", "between"),
        (#"{"extra": 1}"#, "extra", "not a known setting"),
        (#"[]"#, "", "must be an object"),
    ])
    func badConfigNamesKey(text: String, key: String, problem: String) throws {
        try expectConfigError(text, key: key, problem: problem)
    }

    @Test func appLimitsAreRead() throws {
        let config = try parse(#"{"apps": [{"key": "a", "limits": {"maxBitrateKbps": 2500, "maxWidth": 1920, "maxFps": 30}}]}"#)
        #expect(config.apps.first?.maxBitrateKbps == 2500)
        #expect(config.apps.first?.maxWidth == 1920 && config.apps.first?.maxHeight == nil && config.apps.first?.maxFps == 30)
    }

    @Test func unreadableFileIsAnError() {
        #expect(throws: ConfigError.self) { try ServerConfig.load(path: "/nonexistent/sluice.json") }
    }

    @Test func workerCountDefaultsToCores() throws {
        #expect(try parse(#"{"rtc": {"workers": 3}}"#).workerCount == 3)
        #expect(try parse("{}").workerCount >= 1)
    }
}
