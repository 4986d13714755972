import CSQLite
import Foundation
import SluiceCallLog
import SluiceCalls
import Testing

/// A fresh folder per test, so each gets its own real file.
func scratchFile(_ name: String = "calls.db") -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-calllog-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent(name).path
}

func record(_ n: Int, caller: String = "alice", callee: String = "bob", app: String = "app",
            startedAt: Int64? = nil) -> CallRecord {
    CallRecord(callID: String(format: "%032x", n), appKey: app, caller: caller, callee: callee,
               video: n % 2 == 0, audio: true, customJSON: "{\"n\":\(n)}", startedAt: startedAt ?? Int64(1_000_000 + n))
}

/// What `PRAGMA user_version` says, read with SQLite itself rather than through the log.
func userVersion(_ path: String) -> Int64 {
    var db: OpaquePointer?
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil)
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW else { return -1 }
    return sqlite3_column_int64(statement, 0)
}

final class ReportedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func add(_ line: String) { lock.lock(); stored.append(line); lock.unlock() }
    var lines: [String] { lock.lock(); defer { lock.unlock() }; return stored }
}

@Suite struct CallLogDatabaseTests {
    @Test func anEmptyFileGetsTheSchema() throws {
        let path = scratchFile()
        #expect(!FileManager.default.fileExists(atPath: path))
        let log = try CallLogDatabase(path: path)
        defer { log.close() }
        #expect(userVersion(path) == CallLogDatabase.schemaVersion)
        #expect(try log.query(CallLogQuery()).records.isEmpty)
    }

    @Test func aRecordIsUpdatedInPlaceAsTheCallGoesOn() throws {
        let log = try CallLogDatabase(path: scratchFile())
        defer { log.close() }
        try CallLogStoreCases.checkUpdateInPlace(log)
    }

    @Test func aRestartKeepsTheLog() throws {
        let path = scratchFile()
        let first = try CallLogDatabase(path: path)
        let calls = (1...30).map { record($0) }
        calls.forEach(first.write)
        // No flush: close stores what is waiting.
        first.close()
        let second = try CallLogDatabase(path: path)
        defer { second.close() }
        #expect(userVersion(path) == CallLogDatabase.schemaVersion)
        let page = try second.query(CallLogQuery(limit: 100))
        #expect(page.records == calls.reversed())
        second.write(record(31))
        second.flush()
        #expect(try second.query(CallLogQuery(limit: 1)).records.first?.callID == record(31).callID)
    }

    @Test func aFileOfANewerSluiceIsRefused() throws {
        let path = scratchFile()
        try CallLogDatabase(path: path).close()
        var db: OpaquePointer?
        sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil)
        sqlite3_exec(db, "PRAGMA user_version = 99", nil, nil, nil)
        sqlite3_close(db)
        do {
            _ = try CallLogDatabase(path: path)
            Issue.record("a schema 99 file was opened")
        } catch {
            #expect(error.message.contains("schema 99"), "\(error)")
        }
    }

    @Test func aFileThatIsNoDatabaseIsRefusedAndKept() throws {
        let path = scratchFile()
        let junk = Data("this is a text file, not a database. ".utf8) + Data(repeating: 0x41, count: 4096)
        try junk.write(to: URL(fileURLWithPath: path))
        do {
            _ = try CallLogDatabase(path: path)
            Issue.record("a text file was opened as a call log")
        } catch {
            #expect(error.message.contains("not a database"), "\(error)")
        }
        #expect(FileManager.default.contents(atPath: path) == junk)
    }

    @Test func aFolderThatIsMissingIsAClearError() {
        do {
            _ = try CallLogDatabase(path: "/nonexistent-\(UUID().uuidString)/calls.db")
            Issue.record("opened a file in a folder that does not exist")
        } catch {
            #expect(error.message.contains("cannot open"), "\(error)")
        }
    }

    @Test func pagesWalkEveryMatchingCallOnceNewestFirst() throws {
        let log = try CallLogDatabase(path: scratchFile())
        defer { log.close() }
        try CallLogStoreCases.check(log)
    }

    @Test func readsGoOnWhileTheWriterWrites() throws {
        let log = try CallLogDatabase(path: scratchFile())
        defer { log.close() }
        log.write(record(0))
        log.flush()
        for n in 1...2000 { log.write(record(n)) }
        for _ in 0..<50 {
            #expect(try !log.query(CallLogQuery(user: "alice", limit: 5)).records.isEmpty)
        }
        log.flush()
        #expect(try log.query(CallLogQuery(limit: 1)).records.first?.callID == record(2000).callID)
    }

    @Test func writesAfterCloseAreDroppedAndReportedOnce() throws {
        let reported = ReportedLines()
        let path = scratchFile()
        let log = try CallLogDatabase(path: path, report: { reported.add($0) })
        log.write(record(1))
        log.close()
        log.write(record(2))
        log.write(record(3))
        log.flush()
        #expect(reported.lines.count == 1, "\(reported.lines)")
        #expect(log.droppedWrites == 2)
        let reopened = try CallLogDatabase(path: path)
        defer { reopened.close() }
        #expect(try reopened.query(CallLogQuery()).records.map(\.callID) == [record(1).callID])
    }
}
