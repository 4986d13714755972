import SluiceWire

/// Instant join for one player: the walk from a layer's cached key frame to the live edge
/// (docs/design.md "Instant join"). Pure: it says which source packet is next, whether the
/// pace lets it go now, and which timestamp a cached frame gets; the consumer reads the packet
/// from the source's buffer and sends it through its forwarder like any other.
struct CatchUp: Equatable {
    /// The pace, as a multiple of the layer's measured rate, and its floor (below it the
    /// catch-up would never end; a player whose estimate is that low gets a lower layer).
    static let paceFactor = 3.0
    static let minimumPaceFactor = 1.25
    /// A layer not measured yet (the first second of a stream) is taken to run at this.
    static let unmeasuredLayerKbps = 1_000.0
    /// What the pace may save up while nothing waits: a few packets, so the catch-up never
    /// bursts beyond its rate after a pause.
    static let maxSavedBytes = 4_000.0

    let layer: Int
    /// The next source sequence number to send.
    private(set) var next: UInt16
    /// The key frame it started from (or skipped to), as `KeyFrameMark.generation` counts.
    private(set) var generation: UInt32
    /// The key frame's timestamp: its packets go at once, whatever the pace.
    private(set) var keyFrameTimestamp: UInt32
    let clockRate: UInt32
    /// Bytes per microsecond.
    private let pace: Double
    /// Bytes the pace allows now; below zero after a key frame, until the pace paid for it.
    private var allowance = 0.0
    private var refilledAt: UInt64
    /// The source timestamp of the last cached frame sent, to see where the next one starts.
    private var lastSourceTimestamp: UInt32?
    /// The player's timestamp of the first frame sent and when it went: later cached frames
    /// are stamped by their send time from there.
    private var startOutTimestamp: Int64?
    private var startMicros: UInt64 = 0

    init(layer: Int, from mark: KeyFrameMark, layerKbps: Double, estimateKbps: Double?, clockRate: UInt32, now: UInt64) {
        self.layer = layer
        next = mark.startSequence
        generation = mark.generation
        keyFrameTimestamp = mark.timestamp
        self.clockRate = clockRate
        refilledAt = now
        pace = Self.paceKbps(layerKbps: layerKbps, estimateKbps: estimateKbps) * 1_000 / 8 / 1_000_000
    }

    /// 3 times the layer's rate, or the estimate when lower, but at least 1.25 times the rate.
    static func paceKbps(layerKbps: Double, estimateKbps: Double?) -> Double {
        let layer = layerKbps > 0 ? layerKbps : unmeasuredLayerKbps
        var kbps = layer * paceFactor
        if let estimateKbps, estimateKbps < kbps { kbps = estimateKbps }
        return max(kbps, layer * minimumPaceFactor)
    }

    /// Whether the packet `next` (of `size` bytes, with this timestamp) may go now.
    mutating func mayGo(size: Int, timestamp: UInt32, now: UInt64) -> Bool {
        if now > refilledAt {
            allowance = min(Self.maxSavedBytes, allowance + Double(now - refilledAt) * pace)
            refilledAt = now
        }
        return timestamp == keyFrameTimestamp || allowance > 0
    }

    /// The packet `next` went (or was missing: size 0); the pace pays for what went.
    mutating func advance(size: Int) {
        allowance -= Double(size)
        next &+= 1
    }

    /// Caught up: every packet up to the live edge has been walked.
    func reachedLiveEdge(newestSequence: UInt16) -> Bool {
        SequenceNumber.isNewer(next, than: newestSequence)
    }

    /// A newer key frame arrived before the catch-up reached the live edge: go on from it.
    /// True when the walk jumped (the forwarder must restart its video there).
    mutating func skip(to mark: KeyFrameMark) -> Bool {
        guard mark.generation != generation, SequenceNumber.isNewer(mark.startSequence, than: next) else { return false }
        next = mark.startSequence
        generation = mark.generation
        keyFrameTimestamp = mark.timestamp
        return true
    }

    /// Whether a packet with this timestamp starts a cached frame other than the first (the
    /// key frame's own timestamp is the forwarder's restart, which sets it).
    mutating func startsLaterFrame(timestamp: UInt32) -> Bool {
        defer { lastSourceTimestamp = timestamp }
        guard let last = lastSourceTimestamp else { return false }
        return timestamp != last
    }

    /// The player's timestamp for a later cached frame sent now: as much media time after the
    /// first frame as has passed since it went, and always after the last one sent. So the
    /// player's jitter buffer sees each frame arrive on time (not seconds late, as its capture
    /// time would say) and plays the catch-up fast; and timestamps never go back.
    func outTimestamp(lastOut: Int64, now: UInt64) -> Int64 {
        guard let start = startOutTimestamp else { return lastOut + 1 }
        let elapsed = now > startMicros ? Int64((now - startMicros) * UInt64(clockRate) / 1_000_000) : 0
        return max(lastOut + 1, start + elapsed)
    }

    /// The first frame went out as the player's timestamp `out`, at `now`.
    mutating func firstFrameSent(out: Int64, now: UInt64) {
        guard startOutTimestamp == nil else { return }
        startOutTimestamp = out
        startMicros = now
    }
}
