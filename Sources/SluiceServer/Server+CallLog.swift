import SluiceCallLog
import SluiceCalls
import SluiceSignaling
import SluiceLog

extension Server {
    /// The call log of `calls.database` (nil when it is ""): an SQLite file for a path,
    /// PostgreSQL for a `postgresql://` or `postgres://` URL. A log that cannot be opened (a
    /// file that is no database, PostgreSQL that does not answer within 10 s or refuses the
    /// password, a newer schema) stops the start with a config error, rather than running
    /// calls that leave no trace.
    static func openCallLog(_ config: ServerConfig, log: Log) throws -> (any CallLogBackend)? {
        let report: @Sendable (String) -> Void = { line in log.warn(line) }
        do {
            switch config.callLogLocation(configPath: config.sourcePath) {
            case nil:
                return nil
            case .sqlite(let path):
                let database = try CallLogDatabase(path: path, report: report)
                log.info("call log: \(path) (SQLite, schema \(CallLogDatabase.schemaVersion))")
                if config.cluster != nil {
                    log.warn("call log: \(path) is this node's own SQLite file, and this node is in a cluster: each node "
                             + "keeps its own log, so callLog and GET /api/v1/calls here show only the calls made "
                             + "through this node. Set calls.database to a postgresql:// URL to share one log "
                             + "(docs/cluster.md, \"The call log\")")
                }
                return database
            case .postgres(let url):
                let database = try PostgresCallLog(url: url, report: report)
                log.info("call log: \(database.location) (PostgreSQL, schema \(PostgresCallLog.schemaVersion); "
                         + "up to \(database.options.maxWaiting) records wait in memory while it is away)")
                return database
            }
        } catch {
            throw ConfigError(key: "calls.database", problem: error.message)
        }
    }
}
