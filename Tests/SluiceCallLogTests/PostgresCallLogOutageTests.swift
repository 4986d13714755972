import Foundation
import SluiceCallLog
import SluiceCalls
import SluiceTestPostgres
import Testing

/// PostgreSQL going away under the log: each test stops and starts a server of its own, so
/// the shared one stays up for the others.
@Suite struct PostgresCallLogOutageTests {
    static func count(_ url: String) throws -> Int {
        Int(try sql(url, "SELECT count(*) FROM calls")[0][0] ?? "") ?? -1
    }

    @Test func aRestartLosesNoRecord() throws {
        let server = try PostgresServerFixture()
        defer { server.remove() }
        let url = try server.createDatabase()
        let reported = ReportedLines()
        let log = try PostgresCallLog(url: url, report: { reported.add($0) })
        defer { log.close() }
        log.write(record(0))
        log.flush()
        // The reader's connection is open before the restart, and dead after it.
        #expect(try log.query(CallLogQuery()).records.count == 1)

        server.stop()
        let n = 500
        for i in 1...n { log.write(record(i)) }
        // While it is away: a query fails, quickly, and says why without the password.
        let start = ContinuousClock.now
        do {
            _ = try log.query(CallLogQuery())
            Issue.record("a query answered while PostgreSQL was stopped")
        } catch {
            #expect(!error.message.contains(PostgresServerFixture.password), "\(error)")
        }
        #expect(ContinuousClock.now - start < .seconds(5))
        usleep(300_000)
        try server.start()
        log.flush()

        #expect(try Self.count(url) == n + 1)
        #expect(try log.query(CallLogQuery(limit: 1000)).records == (0...n).map { record($0) }.reversed())
        #expect(log.droppedWrites == 0)
        let lines = reported.lines
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.contains("records wait in memory") == true, "\(lines)")
        #expect(lines.last?.contains("answers again") == true && lines.last?.contains("none lost") == true, "\(lines)")
        #expect(!lines.joined().contains(PostgresServerFixture.password))
    }

    /// Over the bound the oldest waiting records go, counted and said once; the batch being
    /// written when PostgreSQL went away is kept, and so are the newest.
    @Test func overTheBoundTheOldestAreDroppedCountedAndSaidOnce() throws {
        let server = try PostgresServerFixture()
        defer { server.remove() }
        let url = try server.createDatabase()
        let reported = ReportedLines()
        var options = PostgresCallLog.Options()
        options.maxWaiting = 100
        let log = try PostgresCallLog(url: url, options: options, report: { reported.add($0) })
        defer { log.close() }

        server.stop()
        for i in 0..<150 { log.write(record(i)) }
        #expect(log.droppedWrites == 50)
        // A call already waiting takes no second place: its newer record replaces the old.
        var ended = record(149)
        ended.endedAt = ended.startedAt + 10
        ended.endResult = "completed"
        log.write(ended)
        #expect(log.droppedWrites == 50)

        try server.start()
        log.flush()
        let stored = try log.query(CallLogQuery(limit: 500)).records.reversed().map(\.callID)
        #expect(stored.count == 100)
        // What was written: the first batch (in flight when PostgreSQL stopped), then the newest.
        // (The batch may be 50 or more records long: it is the run from record 0 on.)
        let inFlight = zip(stored, 0...).prefix { $0.0 == record($0.1).callID }.count
        #expect(stored == (0..<inFlight).map { record($0).callID } + (50 + inFlight..<150).map { record($0).callID })
        #expect(try log.query(CallLogQuery(limit: 1)).records == [ended])
        let drops = reported.lines.filter { $0.contains("dropped until it catches up") }
        #expect(drops.count == 1, "\(reported.lines)")
        #expect(reported.lines.last?.contains("50 dropped meanwhile") == true, "\(reported.lines)")
    }

    @Test func closingWhilePostgresIsAwayGivesUpWithinItsTimeout() throws {
        let server = try PostgresServerFixture()
        defer { server.remove() }
        let reported = ReportedLines()
        var options = PostgresCallLog.Options()
        options.closeTimeoutSeconds = 1
        let log = try PostgresCallLog(url: try server.createDatabase(), options: options, report: { reported.add($0) })
        server.stop()
        for i in 0..<5 { log.write(record(i)) }
        let start = ContinuousClock.now
        log.close()
        #expect(ContinuousClock.now - start < .seconds(4))
        #expect(log.droppedWrites == 5)
        #expect(reported.lines.contains { $0.contains("5 record(s) are not stored") }, "\(reported.lines)")
        log.write(record(9))
        #expect(log.droppedWrites == 6)
    }

    @Test func aServerThatStartsLateIsWaitedForAtStart() throws {
        let server = try PostgresServerFixture()
        defer { server.remove() }
        let url = try server.createDatabase()
        server.stop()
        let starter = Thread {
            usleep(700_000)
            try? server.start()
        }
        starter.start()
        let log = try PostgresCallLog(url: url)
        defer { log.close() }
        #expect(try log.query(CallLogQuery()).records.isEmpty)
    }
}
