/// When each packet went to a player, and how big it was, by its transport-wide sequence
/// number: what the player's transport-cc feedback is matched against.
///
/// A fixed ring written on the packet path (no allocation); at a few hundred packets a second
/// it holds several seconds, far more than the feedback interval (50–250 ms): 1,024 records of
/// 8 bytes, 8 KB per player (a player without transport-cc gets an empty one).
struct SendHistory {
    /// A second of a 10 Mbit/s player's packets (about 900 a second with audio): four times
    /// libwebrtc's longest feedback interval; 7 s at 1 Mbit/s.
    static let capacity = 1024

    /// One ring of records rather than one per field: a record is one write to one cache
    /// line (`PacketRecordRing` says why it is not an Array). The send time
    /// keeps its low 32 bits: a record is read within seconds of the latest send time
    /// (`newestMicros`), which gives back the rest, whichever side of it the record is.
    private struct Record {
        var sendMicrosLow: UInt32 = 0
        var sequence: UInt16 = 0
        /// 0: never written (a packet is never empty).
        var size: UInt16 = 0
    }
    private let records: PacketRecordRing<Record>
    private var newestMicros: UInt64 = 0

    init(enabled: Bool = true) {
        records = PacketRecordRing(count: enabled ? Self.capacity : 0, repeating: Record())
    }

    @inline(__always)
    mutating func record(sequence: UInt16, size: Int, now: UInt64) {
        guard !records.isEmpty else { return }
        // Packets are stamped with their batch's receive time or the clock (padding, probes,
        // RTCP-driven resends), so a record may be a little older than the one before it.
        if now > newestMicros { newestMicros = now }
        records[Int(sequence)] = Record(sendMicrosLow: UInt32(truncatingIfNeeded: now), sequence: sequence,
                                        size: UInt16(clamping: max(size, 1)))
    }

    /// The send time and size of `sequence`, unless its slot was overwritten or never written.
    func lookup(_ sequence: UInt16) -> (sendMicros: UInt64, size: Int)? {
        guard !records.isEmpty else { return nil }
        let record = records[Int(sequence)]
        guard record.sequence == sequence, record.size != 0 else { return nil }
        // Signed: the record is within 35 minutes of the newest, on either side.
        let age = Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: newestMicros) &- record.sendMicrosLow))
        return (UInt64(bitPattern: Int64(bitPattern: newestMicros) &- age), Int(record.size))
    }
}
