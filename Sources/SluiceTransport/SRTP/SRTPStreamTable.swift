/// The per-SSRC state of one SRTP session (what libsrtp calls a stream): the highest RTP
/// index and SRTCP index, and on the inbound side a replay window for each. Any SSRC is
/// accepted, as libsrtp's `ssrc_any_inbound`/`ssrc_any_outbound` policies do.
struct SRTPStream {
    var ssrc: UInt32
    /// `hasRTP`, `hasRTCP`: whether the RTP or SRTCP state below has started.
    var flags: UInt32
    /// The highest RTP packet index (ROC and sequence number) accepted or sent.
    var rtpHighest: UInt64
    /// Inbound: the highest SRTCP index accepted. Outbound: the last one sent.
    var rtcpHighest: UInt64
    /// The table's clock at the last packet, for eviction.
    var lastUse: UInt64

    static let hasRTP: UInt32 = 1
    static let hasRTCP: UInt32 = 2
}

/// The streams of one session, in a table allocated with the session and grown (doubling)
/// only when the first authenticated packet of a new SSRC finds it full, never per packet.
///
/// A transport carries a handful of SSRCs (audio, up to three video layers, their RTX, and
/// the peer's RTCP senders), a relay link a few more. The table holds up to
/// `maximumCapacity`; past that, the stream unused for longest is evicted and its SSRC starts
/// afresh if it comes back (ROC 0, empty replay window). Eviction rather than refusal: an
/// SSRC that churns (a peer that changes SSRCs over a long session) keeps working, and what
/// is lost (an old stream's replay state) only matters for an SSRC nobody has used since 64
/// others were.
///
/// Lookup is a linear scan: a few entries, each 32 bytes. State is reached through one `let`
/// pointer (docs/design.md, hot-path rule 8: no exclusivity check per packet).
final class SRTPStreamTable {
    static let initialCapacity = 4
    static let maximumCapacity = 64

    private struct Storage {
        var count: Int
        var capacity: Int
        var clock: UInt64
        var evictions: UInt64
        var streams: UnsafeMutablePointer<SRTPStream>
        /// Inbound only: two windows (RTP, then SRTCP) per stream slot.
        var windows: UnsafeMutablePointer<UInt64>?
    }

    private let storage: UnsafeMutablePointer<Storage>
    /// Inbound sessions keep replay windows; outbound ones need only the highest indices.
    let keepsWindows: Bool

    init(keepsWindows: Bool) {
        self.keepsWindows = keepsWindows
        storage = .allocate(capacity: 1)
        let capacity = Self.initialCapacity
        storage.initialize(to: Storage(count: 0, capacity: capacity, clock: 0, evictions: 0,
                                       streams: .allocate(capacity: capacity),
                                       windows: keepsWindows ? Self.allocateWindows(capacity) : nil))
    }

    deinit {
        storage.pointee.streams.deallocate()
        storage.pointee.windows?.deallocate()
        storage.deallocate()
    }

    var count: Int { storage.pointee.count }
    var capacity: Int { storage.pointee.capacity }
    /// Streams dropped to make room past `maximumCapacity`.
    var evictions: UInt64 { storage.pointee.evictions }

    /// The slot of `ssrc`, or -1. Marks the stream as used.
    @inline(__always)
    func find(_ ssrc: UInt32) -> Int {
        let table = storage
        let streams = table.pointee.streams
        var slot = 0
        let count = table.pointee.count
        while slot < count {
            if streams[slot].ssrc == ssrc {
                table.pointee.clock &+= 1
                streams[slot].lastUse = table.pointee.clock
                return slot
            }
            slot += 1
        }
        return -1
    }

    /// The stream in `slot`; valid until the next `insert`.
    @inline(__always)
    func stream(_ slot: Int) -> UnsafeMutablePointer<SRTPStream> {
        storage.pointee.streams + slot
    }

    @inline(__always)
    func rtpWindow(_ slot: Int) -> SRTPReplayWindow {
        SRTPReplayWindow(words: storage.pointee.windows.unsafelyUnwrapped + slot * 2 * SRTPReplayWindow.wordCount)
    }

    @inline(__always)
    func rtcpWindow(_ slot: Int) -> SRTPReplayWindow {
        SRTPReplayWindow(words: storage.pointee.windows.unsafelyUnwrapped + (slot * 2 + 1) * SRTPReplayWindow.wordCount)
    }

    /// A fresh stream for `ssrc` (which `find` did not find): in a free slot, in a grown table,
    /// or in place of the stream unused for longest.
    func insert(_ ssrc: UInt32) -> Int {
        let table = storage
        if table.pointee.count == table.pointee.capacity {
            if table.pointee.capacity < Self.maximumCapacity {
                grow(to: min(table.pointee.capacity * 2, Self.maximumCapacity))
            } else {
                let slot = leastRecentlyUsed()
                table.pointee.evictions += 1
                reset(slot, ssrc: ssrc)
                return slot
            }
        }
        let slot = table.pointee.count
        table.pointee.count += 1
        reset(slot, ssrc: ssrc)
        return slot
    }

    private func reset(_ slot: Int, ssrc: UInt32) {
        storage.pointee.clock &+= 1
        (storage.pointee.streams + slot).initialize(to: SRTPStream(ssrc: ssrc, flags: 0, rtpHighest: 0, rtcpHighest: 0,
                                                                   lastUse: storage.pointee.clock))
    }

    private func leastRecentlyUsed() -> Int {
        let streams = storage.pointee.streams
        var oldest = 0
        for slot in 1..<storage.pointee.count where streams[slot].lastUse < streams[oldest].lastUse {
            oldest = slot
        }
        return oldest
    }

    private func grow(to capacity: Int) {
        let table = storage
        let count = table.pointee.count
        let streams = UnsafeMutablePointer<SRTPStream>.allocate(capacity: capacity)
        streams.moveInitialize(from: table.pointee.streams, count: count)
        table.pointee.streams.deallocate()
        table.pointee.streams = streams
        if let old = table.pointee.windows {
            let windows = Self.allocateWindows(capacity)
            windows.update(from: old, count: count * 2 * SRTPReplayWindow.wordCount)
            old.deallocate()
            table.pointee.windows = windows
        }
        table.pointee.capacity = capacity
    }

    private static func allocateWindows(_ capacity: Int) -> UnsafeMutablePointer<UInt64> {
        let words = capacity * 2 * SRTPReplayWindow.wordCount
        let windows = UnsafeMutablePointer<UInt64>.allocate(capacity: words)
        windows.initialize(repeating: 0, count: words)
        return windows
    }
}
