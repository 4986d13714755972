import Foundation
import SluiceCalls

extension ServerConfig {
    /// `calls`: `{"ringTimeoutSeconds": 60, "reconnectSeconds": 2, "perMinute": 30,
    /// "database": "calls.db"}`, all optional (docs/protocol.md section 6, "Calls").
    static func readCalls(_ top: ConfigReader, into config: inout ServerConfig) throws(ConfigError) {
        let section = try top.child("calls", known: ["ringTimeoutSeconds", "reconnectSeconds", "perMinute", "mediaTimeoutSeconds",
                                                          "database"])
        let defaults = CallSettings()
        config.calls = CallSettings(
            ringTimeoutSeconds: try section.int("ringTimeoutSeconds", default: defaults.ringTimeoutSeconds, range: 1...3600),
            reconnectSeconds: try section.int("reconnectSeconds", default: defaults.reconnectSeconds, range: 0...600),
            perMinute: try section.int("perMinute", default: defaults.perMinute, range: 1...100_000))
        config.calls.mediaTimeoutSeconds = try section.int("mediaTimeoutSeconds", default: defaults.mediaTimeoutSeconds,
                                                           range: 0...3600)
        config.callDatabase = try section.string("database", default: "calls.db")
    }

    /// `apps[i].trustClientUser` and `apps[i].calls`: `{"enabled": true, "callWaiting": false}`.
    static func readAppCalls(_ app: ConfigReader, into entry: inout App) throws(ConfigError) {
        entry.trustClientUser = try app.bool("trustClientUser", default: false)
        let section = try app.child("calls", known: ["enabled", "callWaiting"])
        entry.calls = AppCallRules(enabled: try section.bool("enabled", default: true),
                                   callWaiting: try section.bool("callWaiting", default: false))
    }

    /// `calls.database` as a path: a relative one is from the config file's folder (the
    /// working directory for a config that came from no file); nil when the log is off.
    public func callDatabasePath(configPath: String?) -> String? {
        guard !callDatabase.isEmpty else { return nil }
        if callDatabase.hasPrefix("/") { return callDatabase }
        let folder = configPath.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
            ?? FileManager.default.currentDirectoryPath
        return URL(fileURLWithPath: folder).appendingPathComponent(callDatabase).path
    }
}
