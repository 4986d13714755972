import SluiceCalls

/// The call log's tables, as numbered migrations. `PRAGMA user_version` holds the number of
/// migrations a file has had; opening runs the ones it lacks in one transaction, so a file is
/// always at one version. A migration, once released, is never edited: a change is a
/// new one at the end.
enum CallLogSchema {
    static let migrations: [String] = [
        // 1: the calls, and who took part in each (the index a user's own log walks).
        """
        CREATE TABLE calls (
            call_id     TEXT PRIMARY KEY,
            app_key     TEXT NOT NULL,
            caller      TEXT NOT NULL,
            callee      TEXT NOT NULL,
            video       INTEGER NOT NULL,
            audio       INTEGER NOT NULL,
            custom      TEXT NOT NULL,
            started_at  INTEGER NOT NULL,
            answered_at INTEGER,
            ended_at    INTEGER,
            duration_ms INTEGER NOT NULL,
            end_result  TEXT,
            ended_by    TEXT
        ) WITHOUT ROWID;
        CREATE INDEX calls_by_time ON calls (started_at, call_id);
        CREATE INDEX calls_by_app ON calls (app_key, started_at, call_id);
        CREATE TABLE call_parties (
            user       TEXT NOT NULL,
            started_at INTEGER NOT NULL,
            call_id    TEXT NOT NULL,
            app_key    TEXT NOT NULL,
            PRIMARY KEY (user, started_at, call_id)
        ) WITHOUT ROWID;
        """,
    ]

    static var version: Int64 { Int64(migrations.count) }

    /// Brings the file up to `version`, in one `BEGIN IMMEDIATE` transaction: the version is
    /// read inside it, after the write lock is taken, so of several servers opening a new file
    /// together one migrates and the others, waiting on the lock (the busy timeout), find the
    /// schema done. A file from a newer Sluice is refused rather than written in a shape it
    /// does not expect.
    static func migrate(_ connection: SQLiteConnection) throws(CallLogError) {
        try connection.executeWaitingForLocks("BEGIN IMMEDIATE")
        do throws(CallLogError) {
            let current = try connection.integer("PRAGMA user_version")
            guard current <= version else {
                throw CallLogError("\(connection.path) has call log schema \(current); this Sluice knows up to \(version)")
            }
            for next in current..<version {
                do {
                    try connection.execute(migrations[Int(next)])
                } catch {
                    throw CallLogError("migrating the call log to schema \(next + 1): \(error.message)")
                }
            }
            if current < version { try connection.execute("PRAGMA user_version = \(version)") }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
