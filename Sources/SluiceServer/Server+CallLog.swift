import SluiceCallLog
import SluiceCalls
import SluiceSignaling

extension Server {
    /// The call log's SQLite file at `calls.database` (nil when it is ""). A file that cannot
    /// be opened, is no database or has a newer schema stops the start with a config error,
    /// rather than running calls that leave no trace.
    static func openCallLog(_ config: ServerConfig, log: Log) throws -> CallLogDatabase? {
        guard let path = config.callDatabasePath(configPath: config.sourcePath) else { return nil }
        do {
            let database = try CallLogDatabase(path: path, report: { line in log.warn(line) })
            log.info("call log: \(path) (schema \(CallLogDatabase.schemaVersion))")
            return database
        } catch {
            throw ConfigError(key: "calls.database", problem: error.message)
        }
    }
}
