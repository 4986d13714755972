import SluiceCalls

/// The call log's tables in PostgreSQL: the SQLite file's shape (`CallLogSchema`), in
/// PostgreSQL's types, as numbered migrations. `call_log_migrations` keeps one row per
/// migration a database has had. As in SQLite, a released migration is never edited: a
/// change is a new one at the end.
enum PostgresSchema {
    static let migrations: [String] = [
        // 1: the calls, and who took part in each (the index a user's own log walks). Keys
        // compare bytewise (COLLATE "C"), as SQLite's do, so pages and cursors sort the same
        // whatever the database's locale.
        """
        CREATE TABLE calls (
            call_id     text COLLATE "C" PRIMARY KEY,
            app_key     text COLLATE "C" NOT NULL,
            caller      text NOT NULL,
            callee      text NOT NULL,
            video       boolean NOT NULL,
            audio       boolean NOT NULL,
            custom      text NOT NULL,
            started_at  bigint NOT NULL,
            answered_at bigint,
            ended_at    bigint,
            duration_ms bigint NOT NULL,
            end_result  text,
            ended_by    text
        );
        CREATE INDEX calls_by_time ON calls (started_at, call_id);
        CREATE INDEX calls_by_app ON calls (app_key, started_at, call_id);
        CREATE TABLE call_parties (
            "user"     text COLLATE "C" NOT NULL,
            started_at bigint NOT NULL,
            call_id    text COLLATE "C" NOT NULL,
            app_key    text COLLATE "C" NOT NULL,
            PRIMARY KEY ("user", started_at, call_id)
        );
        """,
    ]

    static var version: Int { migrations.count }

    /// Every node runs this at start. The advisory lock (held to the transaction's end)
    /// makes the nodes take turns: the first migrates, the others then find the version
    /// done. The version table itself is created under the lock, since two `CREATE TABLE IF
    /// NOT EXISTS` at once can both try to create it. A database from a newer Sluice is
    /// refused rather than written in a shape this one does not know.
    static func migrate(_ connection: PostgresConnection) throws(PostgresError) {
        try connection.execute("BEGIN")
        do throws(PostgresError) {
            _ = try connection.run("SELECT pg_advisory_xact_lock(\(lockKey))", PostgresParameters())
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS call_log_migrations (
                    version    integer PRIMARY KEY,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            let current = try currentVersion(connection)
            guard current <= version else {
                throw PostgresError("\(connection.url) has call log schema \(current); this Sluice knows up to \(version)",
                                    sqlState: "SLUICE", connectionLost: false)
            }
            for next in current..<version {
                do throws(PostgresError) {
                    try connection.execute(migrations[next])
                    var number = PostgresParameters()
                    number.add(Int64(next + 1))
                    _ = try connection.run("INSERT INTO call_log_migrations (version) VALUES ($1)", number)
                } catch {
                    var failed = error
                    failed.message = "migrating the call log to schema \(next + 1): \(error.message)"
                    throw failed
                }
            }
            try connection.execute("COMMIT")
        } catch {
            if !connection.isBroken { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// The advisory lock's key: any constant the other users of the database are unlikely to
    /// take ("SluiceCL" in ASCII).
    static let lockKey: Int64 = 0x536C_7569_6365_434C

    /// The last migration `call_log_migrations` records (0 for none).
    static func currentVersion(_ connection: PostgresConnection) throws(PostgresError) -> Int {
        Int(try connection.run("SELECT coalesce(max(version), 0) FROM call_log_migrations", PostgresParameters()).row(0).int64(0))
    }
}
