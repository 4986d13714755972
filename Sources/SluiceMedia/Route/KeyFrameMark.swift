import SluiceWire

/// Where one video layer's last key frame starts, as the router saw its packets go by. With
/// the source's retransmission buffer, which holds every packet from there on, this is the
/// layer's key-frame cache for instant join (docs/design.md "Instant join"): no packet is kept
/// twice for it.
struct KeyFrameMark: Equatable {
    /// How long after its arrival a key frame may still start a player that has shown no
    /// video yet. Older, the catch-up would replay too much, so the publisher is asked for a
    /// fresh one instead. 3 s lets a key frame serve every join of a burst of them.
    static let maxJoinAgeMicros: UInt64 = 3_000_000
    /// The same for a player that switches layer or resumes: it has seen newer pictures, and
    /// the catch-up shows the older ones again (played fast), so only briefly.
    static let maxSwitchAgeMicros: UInt64 = 1_000_000
    /// Packets from the key frame to the live edge must fit the buffer with room to spare: the
    /// catch-up reads the oldest while the newest arrive.
    static let maxSpan = RetransmissionBuffer.slots - 64

    /// The key frame's first packet (the lowest sequence number seen with its timestamp).
    private(set) var startSequence: UInt16 = 0
    private(set) var timestamp: UInt32 = 0
    private(set) var arrivalMicros: UInt64 = 0
    /// The newest sequence number of the layer (the live edge).
    private(set) var newestSequence: UInt16 = 0
    /// Counts the layer's key frames; 0 before the first.
    private(set) var generation: UInt32 = 0
    private var seenAny = false
    /// A jump forward of more than this many sequence numbers means the layer's packets did not
    /// all come this way (a relay link's origin stopped forwarding the layer for a while, or a
    /// burst was lost): the walk from the key frame would cross the hole.
    static let maxJump: UInt16 = 64
    /// Set by such a jump, cleared by the next key frame.
    private(set) var broken = false

    /// One packet of the layer (on the packet path: a few compares).
    @inline(__always)
    mutating func record(sequence: UInt16, timestamp: UInt32, isKeyFrame: Bool, now: UInt64) {
        if !seenAny || SequenceNumber.isNewer(sequence, than: newestSequence) {
            if seenAny && sequence &- newestSequence > Self.maxJump { broken = true }
            newestSequence = sequence
            seenAny = true
        }
        guard isKeyFrame else { return }
        if generation > 0 && timestamp == self.timestamp {
            // Another packet of the same key frame; a repaired first packet arrives late.
            if SequenceNumber.isNewer(startSequence, than: sequence) { startSequence = sequence }
            return
        }
        // An older key frame repaired late does not replace the newer one.
        if generation > 0 && !SequenceNumber.isNewer(sequence, than: startSequence) { return }
        startSequence = sequence
        self.timestamp = timestamp
        arrivalMicros = now
        broken = false
        generation &+= 1
        if generation == 0 { generation = 1 }
    }

    /// Whether the key frame may start a player now: young enough, and its packets to the live
    /// edge still in the buffer (the caller checks the first one is there).
    func isUsable(now: UInt64, maxAgeMicros: UInt64 = maxJoinAgeMicros) -> Bool {
        generation > 0 && !broken && now >= arrivalMicros && now - arrivalMicros <= maxAgeMicros
            && Int(newestSequence &- startSequence) < Self.maxSpan
    }
}
