import SluiceCalls
import Synchronization

/// The call log's read side: its own connection (WAL lets it read while the writer writes),
/// one prepared statement per query shape, and pages walked along an index, newest first.
final class CallLogReader: Sendable {
    /// The connection and its statements. Signaling and the admin API may both read; a
    /// statement serves one at a time, so they are reached only under `state`'s lock.
    private struct State {
        let connection: SQLiteConnection
        var statements: [CallLogSQL.Shape: SQLiteStatement] = [:]

        mutating func statement(for shape: CallLogSQL.Shape) throws(CallLogError) -> SQLiteStatement {
            if let statement = statements[shape] { return statement }
            let statement = try connection.prepare(CallLogSQL.page(shape, CallLogSQL.sqliteMarker))
            statements[shape] = statement
            return statement
        }
    }

    private let state: Mutex<State>

    /// `sending`: the connection is the reader's alone from here on.
    init(connection: sending SQLiteConnection) {
        state = Mutex(State(connection: connection))
    }

    func close() {
        state.withLock { state in
            state.statements.removeAll()
            state.connection.close()
        }
    }

    func query(_ query: CallLogQuery) throws(CallLogError) -> CallLogPage {
        guard let bounds = CallLogPageBounds(query) else { return CallLogPage(records: [], nextCursor: nil) }
        return try state.withLock { (state) throws(CallLogError) -> CallLogPage in
            let statement = try state.statement(for: CallLogSQL.Shape(query))
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
    }
}
