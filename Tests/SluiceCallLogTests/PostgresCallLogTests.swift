import Foundation
import SluiceCallLog
import SluiceCalls
import SluiceTestPostgres
import Testing

/// The call log in a real PostgreSQL (`PostgresServerFixture.shared`, one database per test):
/// the schema, the same answers as the SQLite file, the async query, the password.
@Suite struct PostgresCallLogTests {
    static func server() throws -> PostgresServerFixture { try PostgresServerFixture.shared.get() }

    /// A log on a new database of the shared server.
    static func freshLog(report: @escaping @Sendable (String) -> Void = { _ in }) throws -> (PostgresCallLog, String) {
        let url = try server().createDatabase()
        return (try PostgresCallLog(url: url, report: report), url)
    }

    static func migrations(_ url: String) throws -> [String] {
        try sql(url, "SELECT version FROM call_log_migrations ORDER BY version").map { $0[0] ?? "" }
    }

    @Test func anEmptyDatabaseGetsTheSchema() throws {
        let (log, url) = try Self.freshLog()
        defer { log.close() }
        #expect(try Self.migrations(url) == (1...PostgresCallLog.schemaVersion).map(String.init))
        #expect(try log.query(CallLogQuery()).records.isEmpty)
        // Opening again finds it done.
        try PostgresCallLog(url: url).close()
        #expect(try Self.migrations(url).count == PostgresCallLog.schemaVersion)
    }

    @Test func severalNodesMigrateOneDatabaseAtOnce() throws {
        for _ in 0..<3 {
            let url = try Self.server().createDatabase()
            let errors = ReportedLines()
            let logs = OpenedStores()
            DispatchQueue.concurrentPerform(iterations: 8) { n in
                do throws(CallLogError) {
                    let log = try PostgresCallLog(url: url)
                    log.write(record(n))
                    logs.add(log)
                } catch {
                    errors.add(error.message)
                }
            }
            logs.closeAll()
            #expect(errors.lines.isEmpty, "\(errors.lines)")
            #expect(try Self.migrations(url) == (1...PostgresCallLog.schemaVersion).map(String.init))
            #expect(try sql(url, "SELECT count(*) FROM calls") == [["8"]])
        }
    }

    @Test func aDatabaseOfANewerSluiceIsRefused() throws {
        let url = try Self.server().createDatabase()
        try PostgresCallLog(url: url).close()
        _ = try sql(url, "INSERT INTO call_log_migrations (version) VALUES (99)")
        do {
            _ = try PostgresCallLog(url: url)
            Issue.record("a schema 99 database was opened")
        } catch {
            #expect(error.message.contains("schema 99"), "\(error)")
        }
    }

    @Test func aRecordIsUpdatedInPlaceAsTheCallGoesOn() throws {
        let (log, _) = try Self.freshLog()
        defer { log.close() }
        try CallLogStoreCases.checkUpdateInPlace(log)
    }

    @Test func pagesWalkEveryMatchingCallOnceNewestFirst() throws {
        let (log, _) = try Self.freshLog()
        defer { log.close() }
        try CallLogStoreCases.check(log)
    }

    /// The same records in both stores: every page of every query, cursors included, is the same.
    @Test func everyPageIsTheSQLiteFilesPage() throws {
        let (postgres, _) = try Self.freshLog()
        defer { postgres.close() }
        let sqlite = try CallLogDatabase(path: scratchFile())
        defer { sqlite.close() }
        for store in [postgres, sqlite] as [CallLogStore] {
            CallLogStoreCases.records.forEach(store.write)
            store.flush()
        }
        for (query, _) in CallLogStoreCases.queries {
            let fromPostgres = try CallLogStoreCases.pages(postgres, query)
            #expect(fromPostgres == (try CallLogStoreCases.pages(sqlite, query)), "\(query)")
        }
    }

    @Test func theAsyncQueryAnswersFromTheReaderThread() async throws {
        let (log, _) = try Self.freshLog()
        defer { log.close() }
        CallLogStoreCases.records.forEach(log.write)
        log.flush()
        let query = CallLogQuery(user: "carol", limit: 20)
        let (page, elsewhere) = await withCheckedContinuation { continuation in
            let caller = pthread_self()
            log.query(query) { result in
                continuation.resume(returning: (result, pthread_equal(caller, pthread_self()) == 0))
            }
        }
        #expect(try page.get() == (try log.query(query)))
        // Not inline, as the protocol's default would: the reader thread answered.
        #expect(elsewhere)
    }

    @Test func aRecordWithEveryFieldSetComesBackTheSame() throws {
        let (log, _) = try Self.freshLog()
        defer { log.close() }
        let call = CallRecord(callID: "abcDEF123", appKey: "app ü", caller: "Zoë 😀", callee: "o'brien\"", video: false,
                              audio: true, customJSON: #"{"a":"b\"c","n":[1,2]}"#, startedAt: Int64.max / 2,
                              answeredAt: -5, endedAt: 0, durationMs: 123_456_789_012, endResult: "completed",
                              endedBy: "Zoë 😀")
        log.write(call)
        log.flush()
        #expect(try log.query(CallLogQuery(user: "Zoë 😀")).records == [call])
        #expect(try log.query(CallLogQuery(appKey: "app ü", user: "o'brien\"")).records == [call])
        #expect(log.droppedWrites == 0)
    }

    @Test func thePasswordShowsNowhere() throws {
        let server = try Self.server()
        let wrong = "Wrong-Pass%40word-99"
        let start = ContinuousClock.now
        do {
            // Refused at once, not after the start timeout (10 s) spent waiting for a server.
            _ = try PostgresCallLog(url: server.url(password: wrong))
            Issue.record("a wrong password was let in")
        } catch {
            #expect(ContinuousClock.now - start < .seconds(3))
            #expect(error.message.contains("password authentication failed"), "\(error)")
            #expect(!error.message.contains("Wrong-Pass"), "\(error)")
            #expect(!error.message.contains("Wrong-Pass@word-99"), "\(error)")
        }
        let url = try PostgresURL(server.url())
        #expect(url.description == "postgresql://\(PostgresServerFixture.user)@127.0.0.1:\(server.port)/postgres")
        #expect(url.redact("x \(PostgresServerFixture.password) y") == "x *** y")
        let inQuery = try PostgresURL("postgres://u@db.example:6543/calls?password=p%40ss-Word&sslmode=disable")
        #expect(inQuery.description == "postgresql://u@db.example:6543/calls")
        #expect(inQuery.redact("a p%40ss-Word b p@ss-Word c") == "a *** b *** c")
        do {
            _ = try PostgresURL("postgresql://u:Secret-1@host:notaport/db?nonsense=1")
            Issue.record("libpq read a URL with an unknown option")
        } catch {
            #expect(!error.message.contains("Secret-1"), "\(error)")
        }
    }
}

final class OpenedStores: @unchecked Sendable {
    private let lock = NSLock()
    private var stores: [any CallLogBackend] = []
    func add(_ store: any CallLogBackend) { lock.lock(); stores.append(store); lock.unlock() }
    func closeAll() { lock.lock(); stores.forEach { $0.close() }; stores.removeAll(); lock.unlock() }
}
