/// Where the call log is kept. The signaling thread writes and reads through this; the
/// server wires in SluiceCallLog's SQLite file (`CallLogDatabase`).
public protocol CallLogStore: AnyObject {
    /// Keeps the record, replacing the one of the same `callID`. Returns at once: the write
    /// happens on the store's own thread, in order.
    func write(_ record: CallRecord)
    /// A page of records. Runs on the caller's thread and must be quick (an index walk).
    func query(_ query: CallLogQuery) throws(CallLogError) -> CallLogPage
    /// Waits until every write so far is on disk (tests, shutdown).
    func flush()
}

/// What went wrong with the call log's database, for a log line and a 500.
public struct CallLogError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
