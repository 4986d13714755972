import SluiceWire

/// Maps a source's sequence numbers and timestamps onto one outgoing stream per player.
///
/// The outgoing stream has no gaps that the server made: packets dropped before a
/// (re)start point do not count, and a new source (another publisher, later another
/// simulcast layer) continues right after the last packet sent. Gaps that upstream loss
/// made stay visible, so the player can NACK them.
public struct SequenceMunger {
    public enum Decision: Equatable {
        case forward(sequenceNumber: UInt16, timestamp: UInt32)
        /// Older than the current start point, or a duplicate of what was sent before it.
        case drop
    }

    /// Extended sequence number of the newest packet sent, in output space.
    public private(set) var lastOutSequence: Int64
    public private(set) var lastOutTimestamp: Int64 = 0
    public private(set) var started = false

    private var sourceSequence = SequenceUnwrapper()
    private var sourceTimestamp = TimestampUnwrapper()
    private var sequenceOffset: Int64 = 0
    private var timestampOffset: Int64 = 0
    private var startSequence: Int64 = 0
    private var lastSendMicros: UInt64 = 0

    /// `initialSequence` must be below 2^15 so that an SRTP rollover counter cannot
    /// desynchronise (docs/design.md, hot-path rule 5).
    public init(initialSequence: UInt16, initialTimestamp: UInt32) {
        precondition(initialSequence < 0x8000)
        lastOutSequence = Int64(initialSequence) - 1
        lastOutTimestamp = Int64(initialTimestamp)
    }

    /// Starts (or restarts, for a new source) at this packet: it becomes the packet after
    /// the last one sent. `clockRate` and `now` set the timestamp step across the switch.
    /// `timestampStep`, when known (from sender reports), is the exact media time between the
    /// last packet sent and this one; without it the arrival times stand in.
    public mutating func restart(atSequence sequence: UInt16, timestamp: UInt32, clockRate: UInt32, now: UInt64,
                                 timestampStep: Int64? = nil) {
        sourceSequence = SequenceUnwrapper()
        sourceTimestamp = TimestampUnwrapper()
        let extended = sourceSequence.unwrap(sequence)
        let extendedTimestamp = sourceTimestamp.unwrap(timestamp)
        startSequence = extended
        sequenceOffset = extended - (lastOutSequence + 1)
        var step: Int64 = 1
        if let timestampStep {
            step = max(1, timestampStep)
        } else if started, lastSendMicros > 0, now > lastSendMicros {
            step = max(1, Int64((now - lastSendMicros) * UInt64(clockRate) / 1_000_000))
        }
        timestampOffset = extendedTimestamp - (started ? lastOutTimestamp + step : lastOutTimestamp)
        started = true
    }

    /// Takes the next outgoing sequence number for a packet the server makes itself (padding
    /// to probe bandwidth), and shifts the source's numbering up by one so nothing collides.
    /// Only between whole frames, when no older source packet is still expected.
    public mutating func insert() -> (sequenceNumber: UInt16, timestamp: UInt32)? {
        guard started else { return nil }
        lastOutSequence += 1
        sequenceOffset -= 1
        return (UInt16(truncatingIfNeeded: lastOutSequence), UInt32(truncatingIfNeeded: lastOutTimestamp))
    }

    /// Leaves a source packet out (a temporal layer the player does not get) without leaving
    /// a gap: later packets move down by one. Only a packet that would have been the next one
    /// sent can go this way; an older one stays a gap the player may NACK.
    public mutating func skip(sequence: UInt16) {
        guard started else { return }
        let extended = sourceSequence.unwrap(sequence)
        guard extended >= startSequence, extended - sequenceOffset == lastOutSequence + 1 else { return }
        sequenceOffset += 1
    }

    /// Gives the frame with this source timestamp, and the frames after it until the next call,
    /// the outgoing timestamp `out` (and its successors their natural distance from it). Instant
    /// join stamps cached frames by when they are sent (`CatchUp.outTimestamp`).
    public mutating func retime(timestamp: UInt32, to out: Int64) {
        guard started else { return }
        timestampOffset = sourceTimestamp.unwrap(timestamp) - out
    }

    /// The rewrite for one packet of the current source.
    @inline(__always)
    public mutating func map(sequence: UInt16, timestamp: UInt32, now: UInt64) -> Decision {
        guard started else { return .drop }
        let extended = sourceSequence.unwrap(sequence)
        guard extended >= startSequence else { return .drop }
        let extendedTimestamp = sourceTimestamp.unwrap(timestamp)
        let outSequence = extended - sequenceOffset
        let outTimestamp = extendedTimestamp - timestampOffset
        if outSequence > lastOutSequence {
            lastOutSequence = outSequence
            lastOutTimestamp = outTimestamp
            lastSendMicros = now
        }
        return .forward(sequenceNumber: UInt16(truncatingIfNeeded: outSequence),
                        timestamp: UInt32(truncatingIfNeeded: outTimestamp))
    }
}
