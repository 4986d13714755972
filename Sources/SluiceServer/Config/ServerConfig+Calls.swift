import Foundation
import SluiceCallLog
import SluiceCalls

extension ServerConfig {
    /// `calls`: `{"ringTimeoutSeconds": 60, "reconnectSeconds": 2, "perMinute": 30,
    /// "database": "calls.db"}`, all optional (docs/protocol.md section 6, "Calls"). `database`
    /// is a path or a `postgresql://user:password@host:port/db` URL.
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
        if PostgresURL.isPostgres(config.callDatabase) {
            // Read by libpq now, so a URL it cannot use stops the start here; the reason
            // never repeats the password.
            do {
                _ = try PostgresURL(config.callDatabase)
            } catch {
                throw ConfigError(key: "calls.database", problem: error.message)
            }
        }
    }

    /// `apps[i].trustClientUser` and `apps[i].calls`: `{"enabled": true, "callWaiting": false}`.
    static func readAppCalls(_ app: ConfigReader, into entry: inout App) throws(ConfigError) {
        entry.trustClientUser = try app.bool("trustClientUser", default: false)
        let section = try app.child("calls", known: ["enabled", "callWaiting"])
        entry.calls = AppCallRules(enabled: try section.bool("enabled", default: true),
                                   callWaiting: try section.bool("callWaiting", default: false))
    }

    /// Where `calls.database` keeps the log.
    public enum CallLogLocation: Equatable {
        /// An SQLite file, this node's own.
        case sqlite(path: String)
        /// A `postgresql://` or `postgres://` URL: one log for every node that names it.
        case postgres(url: String)
    }

    /// `calls.database` read: a PostgreSQL URL, or a path (`callDatabasePath`); nil when the
    /// log is off.
    public func callLogLocation(configPath: String?) -> CallLogLocation? {
        if PostgresURL.isPostgres(callDatabase) { return .postgres(url: callDatabase) }
        return callDatabasePath(configPath: configPath).map { .sqlite(path: $0) }
    }

    /// `calls.database` as a path: a relative one is from the config file's folder (the
    /// working directory for a config that came from no file); nil when the log is off or in
    /// PostgreSQL.
    public func callDatabasePath(configPath: String?) -> String? {
        guard !callDatabase.isEmpty, !PostgresURL.isPostgres(callDatabase) else { return nil }
        if callDatabase.hasPrefix("/") { return callDatabase }
        let folder = configPath.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
            ?? FileManager.default.currentDirectoryPath
        return URL(fileURLWithPath: folder).appendingPathComponent(callDatabase).path
    }
}
