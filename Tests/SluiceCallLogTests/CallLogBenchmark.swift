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
        // Planner statistics as autovacuum would have them on a database that grew slowly.
        let postgresFigures = try CallLogScale.measure(AnalyzedAfterFlush(postgres, url: url), name: "postgresql")
        print("CALL_LOG_BENCH \(postgresFigures)")
    }
}

/// `store`, with `ANALYZE` run after each flush, so the pages are timed on the plans a live
/// database settles on rather than on a table the planner has never looked at.
private final class AnalyzedAfterFlush: CallLogStore {
    private let store: CallLogStore
    private let url: String

    init(_ store: CallLogStore, url: String) {
        self.store = store
        self.url = url
    }

    func write(_ record: CallRecord) { store.write(record) }
    func query(_ query: CallLogQuery) throws(CallLogError) -> CallLogPage { try store.query(query) }

    func flush() {
        store.flush()
        _ = try? sql(url, "ANALYZE")
    }
}
