/// When each packet went to a player, and how big it was, by its transport-wide sequence
/// number: what the player's transport-cc feedback is matched against.
///
/// A fixed ring written on the packet path (no allocation); at a few hundred packets a second
/// it holds several seconds, far more than the feedback interval (50–100 ms).
/// A player without transport-cc gets an empty one (64 KB saved per player).
struct SendHistory {
    static let capacity = 4096
    private let mask: Int

    /// One array of records rather than one per field: a record is one write to one cache
    /// line, and the packet path pays one uniqueness check for it, not three.
    private struct Record {
        var sendMicros: UInt64 = 0
        var sequence: UInt16 = 0
        var size: UInt16 = 0
    }
    private var records: [Record]

    init(enabled: Bool = true) {
        let count = enabled ? Self.capacity : 0
        mask = count - 1
        records = [Record](repeating: Record(), count: count)
    }

    @inline(__always)
    mutating func record(sequence: UInt16, size: Int, now: UInt64) {
        guard mask >= 0 else { return }
        records[Int(sequence) & mask] = Record(sendMicros: now, sequence: sequence, size: UInt16(clamping: size))
    }

    /// The send time and size of `sequence`, unless its slot was overwritten or never written.
    func lookup(_ sequence: UInt16) -> (sendMicros: UInt64, size: Int)? {
        guard mask >= 0 else { return nil }
        let record = records[Int(sequence) & mask]
        guard record.sequence == sequence, record.sendMicros != 0 else { return nil }
        return (record.sendMicros, Int(record.size))
    }
}
