import SluiceCalls

/// The call log in an SQLite file (`calls.database`): the embedded default, nothing to run
/// beside the server. Writes go to `CallLogWriter`'s thread; queries read on the caller's
/// thread through a second connection. The file is in WAL mode, so neither waits for the other.
public final class CallLogDatabase: CallLogBackend, Sendable {
    public let path: String
    public var location: String { path }
    private let writer: CallLogWriter
    private let reader: CallLogReader

    /// Opens (or creates) the file and brings its schema up to date. `report` gets the
    /// writer's problems, each once (a failing disk, then its recovery), for the server's log.
    public init(path: String, report: @escaping @Sendable (String) -> Void = { _ in }) throws(CallLogError) {
        self.path = path
        // The writer keeps it (and closes it, `closeConnection`): the database holds no
        // connection of its own, so that it is Sendable without a claim.
        let writerConnection = try SQLiteConnection(path: path)
        do {
            // A file that is not a database fails here, with SQLite's "file is not a database".
            if try !writerConnection.switchToWAL() {
                report("call log: \(path) stays in rollback-journal mode (another process kept it busy); reads wait for writes")
            }
            // With WAL, NORMAL loses no committed call on a crash of the process, only on a
            // power loss, and spares an fsync per batch.
            try writerConnection.execute("PRAGMA synchronous = NORMAL")
            try CallLogSchema.migrate(writerConnection)
        } catch {
            throw CallLogError("the call log \(path): \(error.message)")
        }
        writer = try CallLogWriter(connection: writerConnection, report: report)
        reader = CallLogReader(connection: try SQLiteConnection(path: path))
        writer.start()
    }

    /// The schema version this Sluice writes (`PRAGMA user_version`).
    public static var schemaVersion: Int64 { CallLogSchema.version }

    public func write(_ record: CallRecord) {
        writer.enqueue(record)
    }

    public func query(_ query: CallLogQuery) throws(CallLogError) -> CallLogPage {
        try reader.query(query)
    }

    public func flush() {
        writer.flush()
    }

    public var droppedWrites: UInt64 { writer.droppedWrites }

    /// Stores what is waiting and closes the file. Writes after this are dropped (and said so).
    public func close() {
        writer.stop()
        reader.close()
        writer.closeConnection()
    }
}
