import Foundation
import SluiceCalls

/// The call log's read side: its own connection (WAL lets it read while the writer writes),
/// one prepared statement per query shape, and pages walked along an index, newest first.
final class CallLogReader: @unchecked Sendable {
    private let connection: SQLiteConnection
    /// Signaling and the admin API may both read; a statement serves one at a time.
    private let lock = NSLock()
    private var statements: [Shape: SQLiteStatement] = [:]

    /// Which index a query walks: a user's own calls walk `call_parties`, the rest `calls`.
    private struct Shape: Hashable {
        var byUser: Bool
        var byApp: Bool
    }

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    func close() {
        lock.lock()
        statements.removeAll()
        connection.close()
        lock.unlock()
    }

    func query(_ query: CallLogQuery) throws(CallLogError) -> CallLogPage {
        let limit = max(1, query.limit)
        // The page's upper bound on started_at, inclusive: below `to`, and not above the cursor.
        var upper = query.to.map { $0 &- 1 } ?? Int64.max
        var afterID: String?
        if let cursor = query.cursor, cursor.startedAt <= upper {
            upper = cursor.startedAt
            afterID = cursor.callID
        }
        let lower = query.from ?? Int64.min
        guard lower <= upper else { return CallLogPage(records: [], nextCursor: nil) }

        lock.lock()
        defer { lock.unlock() }
        let shape = Shape(byUser: query.user != nil, byApp: query.appKey != nil)
        let statement = try statement(for: shape)
        defer { statement.reset() }
        statement.bind(1, query.user)
        statement.bind(2, query.appKey)
        statement.bind(3, lower)
        statement.bind(4, upper)
        statement.bind(5, afterID)
        // One more than the page: a next page is offered only when there is one.
        statement.bind(6, Int64(limit) + 1)
        var records: [CallRecord] = []
        records.reserveCapacity(min(limit + 1, 128))
        while try statement.step() {
            records.append(Self.record(statement))
        }
        guard records.count > limit else { return CallLogPage(records: records, nextCursor: nil) }
        records.removeLast()
        let last = records[records.count - 1]
        return CallLogPage(records: records, nextCursor: CallLogCursor(startedAt: last.startedAt, callID: last.callID))
    }

    private func statement(for shape: Shape) throws(CallLogError) -> SQLiteStatement {
        if let statement = statements[shape] { return statement }
        let statement = try connection.prepare(Self.sql(for: shape))
        statements[shape] = statement
        return statement
    }

    private static let columns = """
        c.call_id, c.app_key, c.caller, c.callee, c.video, c.audio, c.custom, c.started_at,
        c.answered_at, c.ended_at, c.duration_ms, c.end_result, c.ended_by
        """

    /// ?1 user, ?2 app, ?3 and ?4 the started_at bounds (inclusive), ?5 the cursor's call id
    /// (rows at ?4 must sort below it), ?6 the row limit. Unused parameters stay unbound.
    private static func sql(for shape: Shape) -> String {
        let t = shape.byUser ? "p" : "c"
        var sql = "SELECT \(columns) FROM "
        sql += shape.byUser ? "call_parties p JOIN calls c ON c.call_id = p.call_id WHERE p.user = ?1 AND " : "calls c WHERE "
        if shape.byApp { sql += "\(t).app_key = ?2 AND " }
        sql += "\(t).started_at >= ?3 AND \(t).started_at <= ?4 AND (?5 IS NULL OR \(t).started_at < ?4 OR \(t).call_id < ?5) "
        sql += "ORDER BY \(t).started_at DESC, \(t).call_id DESC LIMIT ?6"
        return sql
    }

    private static func record(_ row: SQLiteStatement) -> CallRecord {
        CallRecord(callID: row.text(0), appKey: row.text(1), caller: row.text(2), callee: row.text(3),
                   video: row.int64(4) != 0, audio: row.int64(5) != 0, customJSON: row.text(6),
                   startedAt: row.int64(7), answeredAt: row.optionalInt64(8), endedAt: row.optionalInt64(9),
                   durationMs: row.int64(10), endResult: row.optionalText(11), endedBy: row.optionalText(12))
    }
}
