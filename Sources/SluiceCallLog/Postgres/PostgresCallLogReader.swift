import Foundation
import SluiceCalls

/// The PostgreSQL call log's read side: a thread of its own with its own connection, so
/// neither signaling nor the writer ever waits on a query. Requests queue (at most
/// `maxWaiting`); each runs under the connection's `statement_timeout` and its reply goes out
/// from this thread.
// @unchecked: `requests` is under `condition`; `connection` is the reader thread's alone.
final class PostgresCallLogReader: @unchecked Sendable {
    typealias Reply = @Sendable (Result<CallLogPage, CallLogError>) -> Void
    /// Requests beyond this are answered at once with an error: a database that stalls must
    /// not collect every caller's closure.
    static let maxWaiting = 64

    private let url: PostgresURL
    private let settings: PostgresConnection.Settings
    private let thread = CallLogThread()
    private var condition: NSCondition { thread.condition }
    private var requests: [(query: CallLogQuery, reply: Reply)] = []
    /// The reader thread's own; nil until the first query, and after PostgreSQL went away.
    private var connection: PostgresConnection?

    init(url: PostgresURL, settings: PostgresConnection.Settings) {
        self.url = url
        self.settings = settings
    }

    func start() {
        thread.start(name: "sluice-call-log-read") { [self] in loop() }
    }

    func submit(_ query: CallLogQuery, reply: @escaping Reply) {
        condition.lock()
        guard thread.running, !thread.stopping else {
            condition.unlock()
            reply(.failure(CallLogError("the call log is closed")))
            return
        }
        guard requests.count < Self.maxWaiting else {
            condition.unlock()
            reply(.failure(CallLogError("the call log is busy: \(Self.maxWaiting) queries wait for \(url)")))
            return
        }
        requests.append((query, reply))
        condition.signal()
        condition.unlock()
    }

    /// Answers what waits (with an error), then ends the thread.
    func stop() {
        thread.stop()
    }

    private func loop() {
        while true {
            thread.lockForWork { !requests.isEmpty }
            if thread.stopping {
                let left = requests
                requests.removeAll()
                condition.unlock()
                left.forEach { $0.reply(.failure(CallLogError("the call log is closed"))) }
                break
            }
            let request = requests.removeFirst()
            condition.unlock()
            request.reply(page(request.query))
        }
        connection?.close()
        connection = nil
    }

    /// One try, and a second on a fresh connection when the first found the old one dead (a
    /// PostgreSQL restart since the last query).
    private func page(_ query: CallLogQuery) -> Result<CallLogPage, CallLogError> {
        guard let bounds = CallLogPageBounds(query) else { return .success(CallLogPage(records: [], nextCursor: nil)) }
        var parameters = PostgresParameters()
        parameters.add(bounds.user)
        parameters.add(bounds.appKey)
        parameters.add(bounds.lower)
        parameters.add(bounds.upper)
        parameters.add(bounds.afterID)
        parameters.add(bounds.rowLimit)
        let sql = CallLogSQL.page(CallLogSQL.Shape(query), CallLogSQL.postgresMarker)
        var attempt = 0
        while true {
            attempt += 1
            let hadConnection = connection != nil
            do throws(PostgresError) {
                let connection = try connected()
                let result = try connection.run(sql, parameters)
                return .success(bounds.page((0..<result.rowCount).map { CallRecord(row: result.row($0)) }))
            } catch {
                if error.connectionLost {
                    connection?.close()
                    connection = nil
                }
                guard error.connectionLost, hadConnection, attempt == 1 else { return .failure(error.callLogError) }
            }
        }
    }

    private func connected() throws(PostgresError) -> PostgresConnection {
        try PostgresConnection.reusing(&connection, url: url, settings: settings)
    }
}
