import SluiceCalls

/// A call log the server opens at start and closes at shutdown: the SQLite file of one node
/// (`CallLogDatabase`) or the PostgreSQL database a cluster shares (`PostgresCallLog`).
public protocol CallLogBackend: CallLogStore, Sendable {
    /// Where the log is, for the server's log: a path, or the URL without its password.
    var location: String { get }
    /// Stores what waits (PostgreSQL: within its close timeout), then closes.
    func close()
}
