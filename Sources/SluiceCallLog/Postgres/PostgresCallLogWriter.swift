import Foundation
import SluiceCalls
import Synchronization

/// The PostgreSQL call log's writer thread. Signaling hands records over (`enqueue` only
/// appends under a lock); this thread writes each batch it takes in one transaction, two
/// statements for up to `batchLimit` calls. While PostgreSQL is away (a restart, a network
/// cut) the batch is tried again with a growing pause and the rest wait in
/// `PendingCallRecords`, up to `bound`, so nothing is lost below it.
// @unchecked: `pending`, `inFlight`, `stopDeadline`, `backlogReported` are under `condition`; the rest is the writer thread's or `let`.
final class PostgresCallLogWriter: @unchecked Sendable {
    static let batchLimit = 500
    /// The pause after a failed try, in ms, doubles from the first to the last: a restart is
    /// noticed within a second of PostgreSQL answering again.
    static let firstPauseMs = 50
    static let longestPauseMs = 1000

    private let url: PostgresURL
    private let settings: PostgresConnection.Settings
    /// Records waiting or being written, at most; over it the oldest waiting one is dropped.
    let bound: Int
    private let closeTimeout: Duration
    private let report: @Sendable (String) -> Void
    /// The writer thread's own; nil while PostgreSQL cannot be reached.
    private var connection: PostgresConnection?

    private let thread = CallLogThread()
    private var condition: NSCondition { thread.condition }
    private var pending = PendingCallRecords()
    /// The batch the thread is writing: it counts toward the bound and is never dropped.
    private var inFlight = 0
    private var stopDeadline = ContinuousClock.now
    /// Whether the drop over the bound was said: once, until the backlog drains.
    private var backlogReported = false
    private let dropped = Atomic<UInt64>(0)

    /// Writer-thread state: when the current outage started, and the drop count at the last
    /// write that worked (signaling may drop before this thread notices the outage).
    private var outageStart: ContinuousClock.Instant?
    private var droppedAtLastWrite: UInt64 = 0

    init(url: PostgresURL, settings: PostgresConnection.Settings, connection: PostgresConnection, bound: Int,
         closeTimeout: Duration, report: @escaping @Sendable (String) -> Void) {
        self.url = url
        self.settings = settings
        self.connection = connection
        self.bound = max(2, bound)
        self.closeTimeout = closeTimeout
        self.report = report
    }

    var droppedWrites: UInt64 { dropped.load(ordering: .relaxed) }

    func start() {
        thread.start(name: "sluice-call-log") { [self] in loop() }
    }

    func enqueue(_ record: CallRecord) {
        var line: String?
        condition.lock()
        if thread.running && !thread.stopping {
            if pending.append(record, capacity: bound - inFlight) != nil {
                dropped.add(1, ordering: .relaxed)
                if !backlogReported {
                    backlogReported = true
                    line = "call log: \(bound) records wait for \(url); the oldest waiting are dropped until it catches up "
                        + "(counted in sluice_call_log_dropped_total)"
                }
            }
            condition.signal()
        } else {
            dropped.add(1, ordering: .relaxed)
            if !backlogReported {
                backlogReported = true
                line = "call log: a record came after the log closed and is not stored (call \(record.callID))"
            }
        }
        condition.unlock()
        if let line { report(line) }
    }

    /// Returns once nothing waits and nothing is being written: every record handed over
    /// before the call is stored or given up (and any handed over meanwhile). While
    /// PostgreSQL is away this waits for it.
    func flush() {
        condition.lock()
        while thread.running && !(pending.isEmpty && inFlight == 0) { condition.wait() }
        condition.unlock()
    }

    /// Writes what waits, then ends the thread. PostgreSQL that does not answer within the
    /// close timeout costs what still waits (dropped, counted, said once).
    func stop() {
        thread.stop { stopDeadline = .now + closeTimeout }
    }

    private func loop() {
        while true {
            thread.lockForWork { !pending.isEmpty }
            if pending.isEmpty {
                condition.unlock()
                break
            }
            let batch = pending.take(Self.batchLimit)
            inFlight = batch.count
            condition.unlock()

            store(batch)

            condition.lock()
            inFlight = 0
            if pending.isEmpty { backlogReported = false }
            condition.broadcast()
            condition.unlock()
        }
        connection?.close()
        connection = nil
    }

    /// Writes `batch`, trying again while the failure is PostgreSQL's (not the records'),
    /// until it works or the log closes past its timeout.
    private func store(_ batch: [CallRecord]) {
        var pauseMs = Self.firstPauseMs
        while true {
            do throws(PostgresError) {
                let connection = try connected()
                try write(batch, on: connection)
                endOutage()
                return
            } catch let error where error.isTransient {
                if error.connectionLost || connection?.isBroken != false {
                    connection?.close()
                    connection = nil
                }
                beginOutage(error)
                if giveUpForClose() { return }
                usleep(UInt32(pauseMs * 1000))
                pauseMs = min(pauseMs * 2, Self.longestPauseMs)
            } catch {
                // The statement, not the server: one record PostgreSQL refuses must not cost its
                // batch. Each is tried alone; those refused again are dropped.
                endOutage()
                storeOneByOne(batch, firstError: error)
                return
            }
        }
    }

    private func connected() throws(PostgresError) -> PostgresConnection {
        try PostgresConnection.reusing(&connection, url: url, settings: settings)
    }

    private func write(_ batch: [CallRecord], on connection: PostgresConnection) throws(PostgresError) {
        var calls = PostgresParameters()
        var parties = PostgresParameters()
        for record in batch {
            calls.add(record.callID)
            calls.add(record.appKey)
            calls.add(record.caller)
            calls.add(record.callee)
            calls.add(record.video)
            calls.add(record.audio)
            calls.add(record.customJSON)
            calls.add(record.startedAt)
            calls.add(record.answeredAt)
            calls.add(record.endedAt)
            calls.add(record.durationMs)
            calls.add(record.endResult)
            calls.add(record.endedBy)
            for user in [record.caller, record.callee] {
                parties.add(user)
                parties.add(record.startedAt)
                parties.add(record.callID)
                parties.add(record.appKey)
            }
        }
        try connection.execute("BEGIN")
        do throws(PostgresError) {
            _ = try connection.run(CallLogSQL.upsertCalls(rows: batch.count, CallLogSQL.postgresMarker), calls)
            _ = try connection.run(CallLogSQL.insertParties(rows: batch.count * 2, CallLogSQL.postgresMarker), parties)
            try connection.execute("COMMIT")
        } catch {
            if !connection.isBroken { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    private func storeOneByOne(_ batch: [CallRecord], firstError: PostgresError) {
        var refused = 0
        var lastError = firstError
        for record in batch {
            do throws(PostgresError) {
                try write([record], on: try connected())
            } catch {
                refused += 1
                lastError = error
            }
        }
        guard refused > 0 else { return }
        dropped.add(UInt64(refused), ordering: .relaxed)
        droppedAtLastWrite = droppedWrites
        report("call log: \(url) refused \(refused) record(s), not stored (\(lastError.message))")
    }

    private func beginOutage(_ error: PostgresError) {
        guard outageStart == nil else { return }
        outageStart = .now
        report("call log: cannot write to \(url) (\(error.message)); records wait in memory, at most \(bound), "
               + "and are written when it answers")
    }

    private func endOutage() {
        defer { droppedAtLastWrite = droppedWrites }
        guard let start = outageStart else { return }
        outageStart = nil
        let seconds = Double((ContinuousClock.now - start) / .milliseconds(1)) / 1000
        let lost = droppedWrites - droppedAtLastWrite
        report("call log: \(url) answers again after \(String(format: "%.1f", seconds)) s; the waiting records are "
               + "written" + (lost > 0 ? " (\(lost) dropped meanwhile, the oldest)" : ", none lost"))
    }

    /// Past the close timeout, everything still held is dropped at once, rather than one
    /// connection timeout per batch.
    private func giveUpForClose() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard thread.stopping, ContinuousClock.now >= stopDeadline else { return false }
        let lost = inFlight + pending.count
        _ = pending.take(Int.max)
        dropped.add(UInt64(lost), ordering: .relaxed)
        report("call log: closing while \(url) does not answer; \(lost) record(s) are not stored")
        return true
    }
}
