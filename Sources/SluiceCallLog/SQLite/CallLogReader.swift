import Foundation
import SluiceCalls

/// The call log's read side: its own connection (WAL lets it read while the writer writes),
/// one prepared statement per query shape, and pages walked along an index, newest first.
final class CallLogReader: @unchecked Sendable {
    private let connection: SQLiteConnection
    /// Signaling and the admin API may both read; a statement serves one at a time.
    private let lock = NSLock()
    private var statements: [CallLogSQL.Shape: SQLiteStatement] = [:]

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
        guard let bounds = CallLogPageBounds(query) else { return CallLogPage(records: [], nextCursor: nil) }
        lock.lock()
        defer { lock.unlock() }
        let statement = try statement(for: CallLogSQL.Shape(query))
        defer { statement.reset() }
        statement.bind(1, bounds.user)
        statement.bind(2, bounds.appKey)
        statement.bind(3, bounds.lower)
        statement.bind(4, bounds.upper)
        statement.bind(5, bounds.afterID)
        statement.bind(6, bounds.rowLimit)
        var rows: [CallRecord] = []
        rows.reserveCapacity(min(bounds.limit + 1, 128))
        while try statement.step() {
            rows.append(CallRecord(row: statement))
        }
        return bounds.page(rows)
    }

    private func statement(for shape: CallLogSQL.Shape) throws(CallLogError) -> SQLiteStatement {
        if let statement = statements[shape] { return statement }
        let statement = try connection.prepare(CallLogSQL.page(shape, CallLogSQL.sqliteMarker))
        statements[shape] = statement
        return statement
    }
}
