import SluiceCalls

/// The records waiting for the database, oldest first, with two rules that keep the memory
/// bounded and lose as little as can be lost:
/// - **A call waits once.** A record for a call that already waits replaces it where it
///   stands: a call's later record (answered, ended) carries every field, so the row comes out
///   the same, and a call costs one place however many times it changes during an outage.
/// - **Over the bound, the oldest goes.** The oldest waiting record is the one most likely to
///   be superseded or least missed: a call that ended since has its own newer record here,
///   while dropping the newest would lose every call's end and leave the log saying calls
///   still ring. The caller counts what `append` dropped.
struct PendingCallRecords {
    private var records: [CallRecord] = []
    /// Index in `records` of the oldest waiting record; those before it are taken.
    private var head = 0
    /// Absolute index (`taken + position in records`) of each waiting call's record.
    private var positions: [String: Int] = [:]
    /// Records taken over the queue's life, minus those compacted away: the absolute index of
    /// `records[0]`.
    private var base = 0

    var count: Int { records.count - head }
    var isEmpty: Bool { count == 0 }

    /// Adds `record` (or replaces its call's waiting one). With `capacity` records waiting
    /// already, the oldest is dropped first and returned.
    mutating func append(_ record: CallRecord, capacity: Int) -> CallRecord? {
        if let position = positions[record.callID] {
            records[position - base] = record
            return nil
        }
        var dropped: CallRecord?
        if count >= max(1, capacity) {
            dropped = removeOldest()
        }
        records.append(record)
        positions[record.callID] = base + records.count - 1
        return dropped
    }

    /// Up to `limit` of the oldest records, which no longer wait: a later record of one of
    /// their calls queues behind them, so it is written after.
    mutating func take(_ limit: Int) -> [CallRecord] {
        let end = head + min(count, max(0, limit))
        let taken = Array(records[head..<end])
        for record in taken { positions[record.callID] = nil }
        head = end
        compact()
        return taken
    }

    private mutating func removeOldest() -> CallRecord {
        let oldest = records[head]
        positions[oldest.callID] = nil
        head += 1
        compact()
        return oldest
    }

    /// Frees the taken prefix once it is the larger part, so memory follows what waits.
    private mutating func compact() {
        guard head > 64, head * 2 >= records.count else { return }
        records.removeFirst(head)
        base += head
        head = 0
    }
}
