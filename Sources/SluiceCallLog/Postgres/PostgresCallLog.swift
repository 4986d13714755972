import Foundation
import SluiceCalls
import Synchronization

/// The call log in PostgreSQL (`calls.database` = `postgresql://...`): one log for every node
/// of a cluster. Writes go to `PostgresCallLogWriter`'s thread, which holds them in memory
/// while PostgreSQL is away (up to `Options.maxWaiting`); reads go to
/// `PostgresCallLogReader`'s thread and connection, bounded by a statement timeout.
public final class PostgresCallLog: CallLogBackend, Sendable {
    public struct Options: Sendable {
        /// Records held in memory while PostgreSQL does not answer (each call once: a call's
        /// newer record replaces its waiting one). Over it, the oldest waiting is dropped.
        /// 10,000 is minutes of a busy cluster's calls, and a few MB.
        public var maxWaiting = 10_000
        /// A query PostgreSQL has not answered in this time is cancelled (`statement_timeout`);
        /// the synchronous `query` waits this and the connect timeout at most.
        public var queryTimeoutMs = 3000
        /// At start, PostgreSQL is waited for this long (a cluster whose database starts
        /// with it) before the server gives up with the reason.
        public var startTimeoutSeconds = 10.0
        /// At close, records still waiting get this long to be written.
        public var closeTimeoutSeconds = 5.0
        public var connectTimeoutSeconds = 3

        public init() {}
    }

    public let url: PostgresURL
    public let options: Options
    private let writer: PostgresCallLogWriter
    private let reader: PostgresCallLogReader

    /// Connects, brings the schema up to date (once, whichever node comes first) and starts
    /// the writer and reader threads. `report` gets the writer's news for the server's log:
    /// an outage, a drop over the bound (once each), the recovery.
    public init(url text: String, options: Options = Options(),
                report: @escaping @Sendable (String) -> Void = { _ in }) throws(CallLogError) {
        url = try PostgresURL(text)
        self.options = options
        var settings = PostgresConnection.Settings()
        settings.connectTimeoutSeconds = options.connectTimeoutSeconds
        let connection = try Self.connectAndMigrate(url: url, settings: settings, within: options.startTimeoutSeconds)
        writer = PostgresCallLogWriter(url: url, settings: settings, connection: connection, bound: options.maxWaiting,
                                       closeTimeout: .milliseconds(Int(options.closeTimeoutSeconds * 1000)), report: report)
        var readSettings = settings
        readSettings.statementTimeoutMs = options.queryTimeoutMs
        readSettings.applicationName = "sluice-read"
        reader = PostgresCallLogReader(url: url, settings: readSettings)
        writer.start()
        reader.start()
    }

    /// The schema version this Sluice writes (`call_log_migrations`).
    public static var schemaVersion: Int { PostgresSchema.version }

    public var location: String { url.description }

    public func write(_ record: CallRecord) {
        writer.enqueue(record)
    }

    public func query(_ query: CallLogQuery, reply: @escaping @Sendable (Result<CallLogPage, CallLogError>) -> Void) {
        reader.submit(query, reply: reply)
    }

    /// The reader thread's answer, waited for at most the connect and statement timeouts
    /// (and a second for the reply to come back).
    public func query(_ query: CallLogQuery) throws(CallLogError) -> CallLogPage {
        let answer = QueryAnswer()
        reader.submit(query) { answer.set($0) }
        let limit = Double(options.connectTimeoutSeconds) + Double(options.queryTimeoutMs) / 1000 + 1
        guard let result = answer.wait(seconds: limit) else {
            throw CallLogError("\(url) did not answer the call log query within \(Int(limit)) s")
        }
        return try result.get()
    }

    public func flush() {
        writer.flush()
    }

    public var droppedWrites: UInt64 { writer.droppedWrites }

    /// Writes what waits (for at most `closeTimeoutSeconds`), then closes both connections.
    public func close() {
        writer.stop()
        reader.stop()
    }

    /// Tries until PostgreSQL answers and the schema is current, or `seconds` pass. A
    /// database of a newer Sluice, or a refused password, fails at once.
    private static func connectAndMigrate(url: PostgresURL, settings: PostgresConnection.Settings,
                                          within seconds: Double) throws(CallLogError) -> PostgresConnection {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var pauseMs = PostgresCallLogWriter.firstPauseMs
        while true {
            do throws(PostgresError) {
                let connection = try PostgresConnection(url: url, settings: settings)
                try PostgresSchema.migrate(connection)
                return connection
            } catch {
                guard error.isTransient, !error.refusedAfterPassword,
                      ContinuousClock.now + .milliseconds(pauseMs) < deadline else {
                    throw CallLogError("the call log \(url): \(error.message)")
                }
                usleep(UInt32(pauseMs * 1000))
                pauseMs = min(pauseMs * 2, PostgresCallLogWriter.longestPauseMs)
            }
        }
    }
}

/// The synchronous query's meeting point with the reader thread; a reply that comes after
/// the wait gave up is dropped (its signal only raises a count nobody waits on).
private final class QueryAnswer: Sendable {
    private let result = Mutex<Result<CallLogPage, CallLogError>?>(nil)
    private let arrived = DispatchSemaphore(value: 0)

    func set(_ value: Result<CallLogPage, CallLogError>) {
        result.withLock { $0 = value }
        arrived.signal()
    }

    func wait(seconds: Double) -> Result<CallLogPage, CallLogError>? {
        _ = arrived.wait(timeout: .now() + seconds)
        return result.withLock { $0 }
    }
}
