/// Where the call log is kept. The signaling thread writes and reads through this; the
/// server wires in SluiceCallLog's SQLite file (`CallLogDatabase`) or PostgreSQL
/// (`PostgresCallLog`), by `calls.database`.
public protocol CallLogStore: AnyObject {
    /// Keeps the record, replacing the one of the same `callID`. Returns at once: the write
    /// happens on the store's own thread, in order.
    func write(_ record: CallRecord)
    /// A page of records, on the caller's thread. Quick for a local file (an index walk); a
    /// store across the network bounds it by its own timeout, so prefer the form with `reply`.
    func query(_ query: CallLogQuery) throws(CallLogError) -> CallLogPage
    /// A page of records, given to `reply` once, on whatever thread the store answers from:
    /// a store across the network reads on a thread of its own, so the caller's thread never
    /// waits for the database. The default runs `query` and replies before returning.
    func query(_ query: CallLogQuery, reply: @escaping @Sendable (Result<CallLogPage, CallLogError>) -> Void)
    /// Waits until every write so far is stored (tests, shutdown).
    func flush()
    /// Records handed to `write` that were never stored (a backlog over the store's bound, a
    /// database that refused them, the store closed): `sluice_call_log_dropped_total`.
    var droppedWrites: UInt64 { get }
}

extension CallLogStore {
    public func query(_ query: CallLogQuery, reply: @escaping @Sendable (Result<CallLogPage, CallLogError>) -> Void) {
        do {
            reply(.success(try self.query(query)))
        } catch {
            reply(.failure(error))
        }
    }

    public var droppedWrites: UInt64 { 0 }
}

/// What went wrong with the call log's database, for a log line and a 500.
public struct CallLogError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
