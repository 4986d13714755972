import SluiceCalls

/// The SQL the SQLite file and PostgreSQL share: one schema shape, the same upserts, the same
/// page walks, so a page reads the same from either. Only the parameter markers differ.
enum CallLogSQL {
    /// How a database numbers parameters from 1: SQLite `?1`, PostgreSQL `$1`. `@Sendable`:
    /// the two are static lets that every call log thread reads.
    typealias Marker = @Sendable (Int) -> String
    static let sqliteMarker: Marker = { "?\($0)" }
    static let postgresMarker: Marker = { "$\($0)" }

    /// The calls table's columns, in the order of every insert and select.
    static let callColumns = ["call_id", "app_key", "caller", "callee", "video", "audio", "custom", "started_at",
                              "answered_at", "ended_at", "duration_ms", "end_result", "ended_by"]
    /// `user` is a reserved word in PostgreSQL; quoted, it names the same column in SQLite.
    static let partyColumns = [#""user""#, "started_at", "call_id", "app_key"]

    /// `rows` calls in one statement, each replacing the one of its call id: a call's later
    /// record (answered, ended) carries what changed. The rows' call ids must differ
    /// (PostgreSQL refuses to update one row twice in a statement).
    static func upsertCalls(rows: Int, _ marker: Marker) -> String {
        """
        INSERT INTO calls (\(callColumns.joined(separator: ", "))) VALUES \(values(rows: rows, columns: callColumns.count, marker))
        ON CONFLICT (call_id) DO UPDATE SET
            answered_at = excluded.answered_at, ended_at = excluded.ended_at, duration_ms = excluded.duration_ms,
            end_result = excluded.end_result, ended_by = excluded.ended_by
        """
    }

    /// `rows` parties (two per call: caller and callee); a party already there stays.
    static func insertParties(rows: Int, _ marker: Marker) -> String {
        "INSERT INTO call_parties (\(partyColumns.joined(separator: ", "))) VALUES "
            + values(rows: rows, columns: partyColumns.count, marker) + " ON CONFLICT DO NOTHING"
    }

    private static func values(rows: Int, columns: Int, _ marker: Marker) -> String {
        (0..<rows).map { row in
            "(" + (1...columns).map { marker(row * columns + $0) }.joined(separator: ", ") + ")"
        }.joined(separator: ", ")
    }

    /// Which index a page walks: a user's own calls walk `call_parties`, the rest `calls`.
    struct Shape: Hashable {
        var byUser: Bool
        var byApp: Bool

        init(_ query: CallLogQuery) {
            byUser = query.user != nil
            byApp = query.appKey != nil
        }
    }

    /// A page, newest first. Parameters: 1 user, 2 app, 3 and 4 the started_at bounds
    /// (inclusive), 5 the cursor's call id (rows at bound 4 must sort below it), 6 the row
    /// limit; `CallLogPageBounds.parameters` gives them. A parameter the shape does not use is
    /// never read.
    static func page(_ shape: Shape, _ marker: Marker) -> String {
        let t = shape.byUser ? "p" : "c"
        var sql = "SELECT " + callColumns.map { "c.\($0)" }.joined(separator: ", ") + " FROM "
        sql += shape.byUser
            ? "call_parties p JOIN calls c ON c.call_id = p.call_id WHERE p.\"user\" = \(marker(1)) AND "
            : "calls c WHERE "
        if shape.byApp { sql += "\(t).app_key = \(marker(2)) AND " }
        sql += "\(t).started_at >= \(marker(3)) AND \(t).started_at <= \(marker(4)) "
        sql += "AND (\(marker(5)) IS NULL OR \(t).started_at < \(marker(4)) OR \(t).call_id < \(marker(5))) "
        sql += "ORDER BY \(t).started_at DESC, \(t).call_id DESC LIMIT \(marker(6))"
        return sql
    }
}

/// Where a page starts and ends, from a query: the walk both databases make.
struct CallLogPageBounds {
    var user: String?
    var appKey: String?
    /// started_at bounds, inclusive.
    var lower: Int64
    var upper: Int64
    /// With a cursor: rows at `upper` come after this call id.
    var afterID: String?
    var limit: Int

    /// Nil when the range holds nothing (`from` at or after `to`, a cursor before `from`).
    init?(_ query: CallLogQuery) {
        user = query.user
        appKey = query.appKey
        limit = max(1, query.limit)
        // Below `to`, and not above the cursor.
        upper = query.to.map { $0 &- 1 } ?? Int64.max
        if let cursor = query.cursor, cursor.startedAt <= upper {
            upper = cursor.startedAt
            afterID = cursor.callID
        }
        lower = query.from ?? Int64.min
        guard lower <= upper else { return nil }
    }

    /// One more row than the page: a next page is offered only when there is one.
    var rowLimit: Int64 { Int64(limit) + 1 }

    /// The rows a walk found (at most `rowLimit`) as a page with its cursor.
    func page(_ rows: [CallRecord]) -> CallLogPage {
        guard rows.count > limit else { return CallLogPage(records: rows, nextCursor: nil) }
        let records = Array(rows.prefix(limit))
        let last = records[records.count - 1]
        return CallLogPage(records: records, nextCursor: CallLogCursor(startedAt: last.startedAt, callID: last.callID))
    }
}

/// A row of `CallLogSQL.callColumns`, as either database's cursor reads it.
protocol CallLogRow {
    func text(_ column: Int32) -> String
    func optionalText(_ column: Int32) -> String?
    func int64(_ column: Int32) -> Int64
    func optionalInt64(_ column: Int32) -> Int64?
    func bool(_ column: Int32) -> Bool
}

extension CallRecord {
    init(row: some CallLogRow) {
        self.init(callID: row.text(0), appKey: row.text(1), caller: row.text(2), callee: row.text(3),
                  video: row.bool(4), audio: row.bool(5), customJSON: row.text(6), startedAt: row.int64(7),
                  answeredAt: row.optionalInt64(8), endedAt: row.optionalInt64(9), durationMs: row.int64(10),
                  endResult: row.optionalText(11), endedBy: row.optionalText(12))
    }
}
