import Foundation
import SluiceCalls
import Synchronization

/// The call log's writer thread: signaling hands records over (`enqueue` only appends under a
/// lock), and this thread stores each batch it finds in one transaction, so a burst of call
/// ends costs one fsync, and a slow disk never holds up signaling.
// @unchecked: `pending`, `enqueued`, `settled`, `droppedForBacklog` are under `condition`; the rest is the writer thread's or `let`.
final class CallLogWriter: @unchecked Sendable {
    /// Records waiting beyond this are dropped (and said so once): a disk that stopped must not
    /// take the server's memory with it.
    static let maxPending = 100_000
    /// A batch that fails (the file locked by another process, a full disk) is tried this many
    /// times, a second apart, before its records are given up.
    static let attempts = 3

    private let connection: SQLiteConnection
    private let upsertCall: SQLiteStatement
    private let insertParty: SQLiteStatement
    private let report: @Sendable (String) -> Void

    private let thread = CallLogThread()
    private var condition: NSCondition { thread.condition }
    private var pending: [CallRecord] = []
    /// Records handed over, and records dealt with (stored or given up): `flush` waits for the
    /// second to reach the first.
    private var enqueued: UInt64 = 0
    private var settled: UInt64 = 0
    /// Whether the last batch failed, so a failing disk is logged once, and its recovery once.
    private var failing = false
    private var lost = 0
    private var droppedForBacklog = false
    /// Every record never stored, whatever the reason: `CallLogStore.droppedWrites`.
    private let dropped = Atomic<UInt64>(0)

    var droppedWrites: UInt64 { dropped.load(ordering: .relaxed) }

    init(connection: SQLiteConnection, report: @escaping @Sendable (String) -> Void) throws(CallLogError) {
        self.connection = connection
        self.report = report
        upsertCall = try connection.prepare(CallLogSQL.upsertCalls(rows: 1, CallLogSQL.sqliteMarker))
        insertParty = try connection.prepare(CallLogSQL.insertParties(rows: 1, CallLogSQL.sqliteMarker))
    }

    func start() {
        thread.start(name: "sluice-call-log") { [self] in loop() }
    }

    func enqueue(_ record: CallRecord) {
        condition.lock()
        defer { condition.unlock() }
        guard thread.running, !thread.stopping else {
            dropped.add(1, ordering: .relaxed)
            if !droppedForBacklog { report("call log: a record came after the log closed and is not stored (call \(record.callID))") }
            droppedForBacklog = true
            return
        }
        guard pending.count < Self.maxPending else {
            dropped.add(1, ordering: .relaxed)
            if !droppedForBacklog {
                report("call log: \(Self.maxPending) records are waiting for the disk; newer ones are dropped until it catches up")
            }
            droppedForBacklog = true
            return
        }
        pending.append(record)
        enqueued += 1
        condition.signal()
    }

    /// Returns when every record handed over before the call is stored or given up.
    func flush() {
        condition.lock()
        let target = enqueued
        while settled < target && thread.running { condition.wait() }
        condition.unlock()
    }

    /// Stores what is waiting, then ends the thread.
    func stop() {
        thread.stop()
    }

    /// Closes the connection, after `stop`: the thread that used it is gone.
    func closeConnection() {
        connection.close()
    }

    private func loop() {
        while true {
            thread.lockForWork { !pending.isEmpty }
            if pending.isEmpty {
                condition.unlock()
                upsertCall.finalize()
                insertParty.finalize()
                return
            }
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            condition.unlock()

            store(batch)

            condition.lock()
            settled += UInt64(batch.count)
            if pending.isEmpty { droppedForBacklog = false }
            condition.broadcast()
            condition.unlock()
        }
    }

    private func store(_ batch: [CallRecord]) {
        var lastError: CallLogError?
        for attempt in 1...Self.attempts {
            do {
                try storeOnce(batch)
                if failing {
                    report("call log: writing to \(connection.path) works again (\(lost) record(s) were lost)")
                    failing = false
                    lost = 0
                }
                return
            } catch {
                lastError = error
                if attempt < Self.attempts { Thread.sleep(forTimeInterval: 1) }
            }
        }
        lost += batch.count
        dropped.add(UInt64(batch.count), ordering: .relaxed)
        if !failing, let lastError {
            report("call log: cannot write (\(lastError.message)); \(batch.count) record(s) not stored, "
                   + "later failures are counted until it works again")
        }
        failing = true
    }

    private func storeOnce(_ batch: [CallRecord]) throws(CallLogError) {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            for record in batch { try insert(record) }
            try connection.execute("COMMIT")
        } catch {
            // The failed statement reset itself (`run`); the transaction goes back whole.
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    private func insert(_ record: CallRecord) throws(CallLogError) {
        let s = upsertCall
        s.bind(1, record.callID)
        s.bind(2, record.appKey)
        s.bind(3, record.caller)
        s.bind(4, record.callee)
        s.bind(5, record.video)
        s.bind(6, record.audio)
        s.bind(7, record.customJSON)
        s.bind(8, record.startedAt)
        s.bind(9, record.answeredAt)
        s.bind(10, record.endedAt)
        s.bind(11, record.durationMs)
        s.bind(12, record.endResult)
        s.bind(13, record.endedBy)
        try s.run()
        for user in [record.caller, record.callee] {
            insertParty.bind(1, user)
            insertParty.bind(2, record.startedAt)
            insertParty.bind(3, record.callID)
            insertParty.bind(4, record.appKey)
            try insertParty.run()
        }
    }
}
