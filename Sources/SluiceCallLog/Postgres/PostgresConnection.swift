import CLibPQ
import Foundation
import SluiceCalls

/// One libpq connection, used by one thread at a time (the call log has two: the writer's
/// and the reader's). Every failure is a `PostgresError` whose text has no password in it.
final class PostgresConnection {
    let url: PostgresURL
    private var handle: OpaquePointer?

    /// How a connection behaves; the URL's own options, when it has them, win.
    struct Settings: Sendable {
        /// libpq's `connect_timeout` (whole seconds, at least 2 as libpq counts them).
        var connectTimeoutSeconds = 3
        /// The server cancels a statement that runs longer (`statement_timeout`).
        var statementTimeoutMs = 10_000
        var applicationName = "sluice"
    }

    /// Connects, or throws why not (a transient error: the writer tries again).
    init(url: PostgresURL, settings: Settings) throws(PostgresError) {
        self.url = url
        // Ours first and the URL last: libpq lets later settings override earlier ones.
        let parameters: [(String, String)] = [
            ("connect_timeout", String(max(2, settings.connectTimeoutSeconds))),
            ("application_name", settings.applicationName),
            ("options", "-c statement_timeout=\(settings.statementTimeoutMs)"),
            // A peer that vanished without a FIN (a dead host) is noticed in about 20 s, not hours.
            ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "2"),
            ("tcp_user_timeout", "20000"),
            ("dbname", url.text),
        ]
        handle = withCStrings(parameters.map(\.0)) { keywords in
            withCStrings(parameters.map(\.1)) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let problem = lastError
            // The server asked for the password and still refused: it is past starting up, and
            // trying again changes nothing (the wrong password, or a database that is not there).
            let refused = handle.map { PQconnectionUsedPassword($0) != 0 } ?? false
            close()
            var error = PostgresError(url.redact("cannot connect to \(url): \(problem)"), sqlState: nil, connectionLost: true)
            error.refusedAfterPassword = refused
            throw error
        }
        // NOTICEs (an `IF NOT EXISTS` that skipped) would go to stderr; nobody needs them.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { close() }

    /// `existing` while it works; otherwise a new connection, kept in `existing`.
    static func reusing(_ existing: inout PostgresConnection?, url: PostgresURL,
                        settings: Settings) throws(PostgresError) -> PostgresConnection {
        if let existing, !existing.isBroken { return existing }
        existing?.close()
        existing = nil
        let fresh = try PostgresConnection(url: url, settings: settings)
        existing = fresh
        return fresh
    }

    func close() {
        guard let handle else { return }
        PQfinish(handle)
        self.handle = nil
    }

    /// True once the server went away (restart, network): the connection is of no more use.
    var isBroken: Bool { handle.map { PQstatus($0) != CONNECTION_OK } ?? true }

    /// Statements without parameters (BEGIN, COMMIT, a migration's several statements).
    func execute(_ sql: String) throws(PostgresError) {
        let result = PQexec(handle, sql)
        try check(result, sql: sql)
        PQclear(result)
    }

    /// One statement with parameters, in text form; its rows.
    func run(_ sql: String, _ parameters: PostgresParameters) throws(PostgresError) -> PostgresResult {
        let result = parameters.withArrays { count, types, values in
            PQexecParams(handle, sql, count, types, values, nil, nil, 0)
        }
        try check(result, sql: sql)
        return PostgresResult(result!)
    }

    private func check(_ result: OpaquePointer?, sql: String) throws(PostgresError) {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK else { return }
        let message = result.flatMap { PQresultErrorMessage($0) }.map { String(cString: $0) } ?? ""
        let sqlState = result.flatMap { PQresultErrorField($0, Self.sqlStateField) }.map { String(cString: $0) }
        PQclear(result)
        let problem = message.isEmpty ? lastError : message
        let statement = sql.prefix { $0 != " " && $0 != "\n" }
        throw PostgresError(url.redact("\(statement) on \(url): \(problem.trimmingCharacters(in: .whitespacesAndNewlines))"),
                            sqlState: sqlState, connectionLost: isBroken)
    }

    /// libpq's `PG_DIAG_SQLSTATE`, a character macro that Swift does not import.
    private static let sqlStateField = Int32(UInt8(ascii: "C"))

    private var lastError: String {
        guard let handle, let text = PQerrorMessage(handle) else { return "out of memory" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A failure talking to PostgreSQL.
struct PostgresError: Error {
    var message: String
    /// PostgreSQL's error code (`23505`...); nil when no answer came.
    var sqlState: String?
    /// The connection died with it: reconnect before the next try.
    var connectionLost: Bool
    /// A connection the server refused after taking the password: waiting at start for it
    /// is pointless (the writer still holds its records and tries again: a password can be
    /// put right on the server).
    var refusedAfterPassword = false

    init(_ message: String, sqlState: String?, connectionLost: Bool) {
        self.message = message
        self.sqlState = sqlState
        self.connectionLost = connectionLost
    }

    /// Worth trying again unchanged, after a pause: the server or the path to it is the
    /// problem, not the statement. Class 08 (connection), 57 (shut down, starting up, a
    /// statement cancelled by its timeout), 53 (out of resources), 40 (a deadlock, a
    /// serialization failure).
    var isTransient: Bool {
        if connectionLost || sqlState == nil { return true }
        return ["08", "57", "53", "40"].contains { sqlState!.hasPrefix($0) }
    }

    var callLogError: CallLogError { CallLogError(message) }
}

/// A statement's rows, freed with it. Values are read as text (libpq's text format).
final class PostgresResult {
    fileprivate let result: OpaquePointer

    init(_ result: OpaquePointer) { self.result = result }
    deinit { PQclear(result) }

    var rowCount: Int { Int(PQntuples(result)) }

    func row(_ index: Int) -> PostgresRow { PostgresRow(owner: self, row: Int32(index)) }
}

/// One row of a `PostgresResult`, which it keeps alive.
struct PostgresRow: CallLogRow {
    private let owner: PostgresResult
    private let row: Int32
    private var result: OpaquePointer { owner.result }

    fileprivate init(owner: PostgresResult, row: Int32) {
        self.owner = owner
        self.row = row
    }

    func optionalText(_ column: Int32) -> String? {
        guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column) else { return nil }
        return String(cString: value)
    }

    func text(_ column: Int32) -> String { optionalText(column) ?? "" }

    func optionalInt64(_ column: Int32) -> Int64? {
        guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column) else { return nil }
        return strtoll(value, nil, 10)
    }

    func int64(_ column: Int32) -> Int64 { optionalInt64(column) ?? 0 }

    /// PostgreSQL writes a boolean as `t` or `f`.
    func bool(_ column: Int32) -> Bool { optionalText(column) == "t" }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings that live for the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
