import Foundation
import SluiceCallLog
import SluiceCalls
import SluiceTestPostgres
import Testing

/// `callLog` and the admin's page on PostgreSQL beside SQLite, 100,000 calls each
/// (`CallLogScale`). Off unless `SLUICE_BENCH=1`; built optimized for figures worth quoting:
///
///     SLUICE_BENCH=1 swift test -c release --filter CallLogBenchmark
///
/// PostgreSQL is a local one (`PostgresServerFixture`: 127.0.0.1, fsync off), so its figures
/// are its query and libpq's round trip over loopback, and a node's reader thread hop; a
/// database across a network adds that network's round trip to each page.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["SLUICE_BENCH"] == "1", "set SLUICE_BENCH=1"))
struct CallLogBenchmark {
    @Test func postgresBesideSQLiteAtAHundredThousandCalls() throws {
        let sqlite = try CallLogDatabase(path: scratchFile())
        defer { sqlite.close() }
        let sqliteFigures = try CallLogScale.measure(sqlite, name: "sqlite")
        print("CALL_LOG_BENCH \(sqliteFigures)")

        let url = try PostgresServerFixture.shared.get().createDatabase()
        let postgres = try PostgresCallLog(url: url)
        defer { postgres.close() }
        // The pages are timed on the plans a live database settles on: with the planner
        // statistics autovacuum keeps, not on a table the planner has never looked at.
        let postgresFigures = try CallLogScale.measure(postgres, name: "postgresql") { _ = try sql(url, "ANALYZE") }
        print("CALL_LOG_BENCH \(postgresFigures)")

        // How much of a page is PostgreSQL's own work (plan and run), the rest being the
        // round trip and the reader thread's hop.
        let pages = [
            ("userPage", #"FROM call_parties p JOIN calls c ON c.call_id = p.call_id WHERE p."user" = 'user42' AND p.app_key = 'app' ORDER BY p.started_at DESC, p.call_id DESC LIMIT 21"#),
            ("adminPage", "FROM calls c ORDER BY c.started_at DESC, c.call_id DESC LIMIT 101"),
        ]
        for (name, rest) in pages {
            // The last of five: the first plans against cold caches.
            var plan = ""
            for _ in 0..<5 { plan = try sql(url, "EXPLAIN (ANALYZE, FORMAT JSON) SELECT c.* \(rest)")[0][0] ?? "" }
            let times = ["Planning Time", "Execution Time"].map { key in
                plan.range(of: "\"\(key)\": ").map { plan[$0.upperBound...].prefix { $0 != "," && $0 != "\n" } } ?? "?"
            }
            print("CALL_LOG_BENCH postgresql \(name): planning \(times[0]) ms, execution \(times[1]) ms (EXPLAIN ANALYZE)")
        }
    }
}
