import CSQLite
import Foundation
import SluiceCalls

/// One open SQLite connection, used by one thread at a time (the call log has two: the
/// writer thread's and the readers'). Every failure is a `CallLogError` naming the file.
final class SQLiteConnection {
    let path: String
    private var handle: OpaquePointer?
    /// How long a statement waits for another connection's lock (another server on the same
    /// file, or this one's other connection) before SQLite gives up with "database is locked".
    static let busyTimeoutMs: Int32 = 5000

    init(path: String, readOnly: Bool = false) throws(CallLogError) {
        self.path = path
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_FULLMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK else {
            let problem = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            handle = nil
            throw CallLogError("cannot open \(path): \(problem)")
        }
        // Before any statement: servers opening one file together wait for each other's
        // locks (the migration, the switch to WAL) instead of failing at once.
        sqlite3_busy_timeout(handle, Self.busyTimeoutMs)
    }

    deinit { close() }

    func close() {
        guard let handle else { return }
        // Statements are finalized by their owners first; v2 waits for any left over.
        sqlite3_close_v2(handle)
        self.handle = nil
    }

    /// Runs statements that return no rows (schema, pragmas, BEGIN/COMMIT).
    func execute(_ sql: String) throws(CallLogError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let problem = message.map { String(cString: $0) } ?? lastError
            sqlite3_free(message)
            throw CallLogError("\(path): \(problem)")
        }
    }

    /// `execute`, tried again while another connection holds a lock that SQLite does not wait
    /// for through the busy handler (a file that another process is creating or recovering
    /// answers SQLITE_BUSY at once). Bounded by the busy timeout.
    func executeWaitingForLocks(_ sql: String) throws(CallLogError) {
        try waitingForLocks { sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK ? .done : .retry }
    }

    /// Puts the file in WAL mode (it stays so: later opens find it there). The switch needs
    /// every other connection to the file to be idle; while one is not, SQLite answers BUSY or
    /// the mode it keeps ("delete"), so it is tried again within the busy timeout. False when
    /// the file kept its rollback journal after that: readers then wait for the writer's
    /// commits, which is slower but loses nothing.
    func switchToWAL() throws(CallLogError) -> Bool {
        var switched = false
        try waitingForLocks {
            var statement: OpaquePointer?
            defer { sqlite3_finalize(statement) }
            guard sqlite3_prepare_v2(handle, "PRAGMA journal_mode = WAL", -1, &statement, nil) == SQLITE_OK,
                  sqlite3_step(statement) == SQLITE_ROW else { return .retry }
            let mode = sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? ""
            switched = mode.lowercased() == "wal"
            return switched ? .done : .keptOldMode
        }
        return switched
    }

    private enum Attempt { case done, retry, keptOldMode }

    /// Runs `attempt` until it is done, or fails with an error other than a lock, or the busy
    /// timeout passes.
    private func waitingForLocks(_ attempt: () -> Attempt) throws(CallLogError) {
        let deadline = ContinuousClock.now + .milliseconds(Int(Self.busyTimeoutMs))
        while true {
            let outcome = attempt()
            if outcome == .done { return }
            let primary = sqlite3_errcode(handle) & 0xff
            let locked = outcome == .keptOldMode || primary == SQLITE_BUSY || primary == SQLITE_LOCKED
            guard locked, ContinuousClock.now < deadline else {
                if outcome == .keptOldMode { return }
                throw CallLogError("\(path): \(lastError)")
            }
            usleep(UInt32.random(in: 2_000...10_000))
        }
    }

    /// The one integer a pragma such as `user_version` answers.
    func integer(_ sql: String) throws(CallLogError) -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { throw CallLogError("\(path): \(sql) gave no row") }
        return statement.int64(0)
    }

    func prepare(_ sql: String) throws(CallLogError) -> SQLiteStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw CallLogError("\(path): \(lastError)")
        }
        return SQLiteStatement(statement, connection: self)
    }

    var lastError: String {
        guard let handle else { return "the database is closed" }
        return String(cString: sqlite3_errmsg(handle))
    }
}

/// A prepared statement: bind, step, read columns, reset. Reused for every write and query of
/// its shape, so SQL is parsed once.
final class SQLiteStatement: CallLogRow {
    private var statement: OpaquePointer?
    private unowned let connection: SQLiteConnection
    /// SQLITE_TRANSIENT: SQLite copies bound text before `bind` returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ statement: OpaquePointer, connection: SQLiteConnection) {
        self.statement = statement
        self.connection = connection
    }

    deinit { finalize() }

    /// Frees the statement now: a connection closes (and checkpoints its WAL into the file)
    /// only once none of its statements is left.
    func finalize() {
        sqlite3_finalize(statement)
        statement = nil
    }

    /// Clears the last run's bindings and cursor.
    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    /// Parameters are numbered from 1, as in SQL's `?1`.
    func bind(_ index: Int32, _ value: String?) {
        guard let value else { sqlite3_bind_null(statement, index); return }
        sqlite3_bind_text(statement, index, value, -1, Self.transient)
    }

    func bind(_ index: Int32, _ value: Int64?) {
        guard let value else { sqlite3_bind_null(statement, index); return }
        sqlite3_bind_int64(statement, index, value)
    }

    func bind(_ index: Int32, _ value: Bool) {
        sqlite3_bind_int(statement, index, value ? 1 : 0)
    }

    /// True while there is a row to read; false when done.
    func step() throws(CallLogError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw CallLogError("\(connection.path): \(connection.lastError)")
        }
    }

    /// Runs a statement that returns no rows, then resets it for the next use.
    func run() throws(CallLogError) {
        defer { reset() }
        _ = try step()
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    func optionalInt64(_ column: Int32) -> Int64? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, column)
    }

    func bool(_ column: Int32) -> Bool { int64(column) != 0 }

    func text(_ column: Int32) -> String { optionalText(column) ?? "" }

    func optionalText(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: bytes)
    }
}
