/// One audio stream's smoothed level, from the RFC 6464 level its packets carry (-dBov: 0 is
/// the loudest, 127 silence), for stats and the speaker detection built on it
/// (docs/protocol.md section 3).
///
/// The levels are averaged over windows of `windowMicros` (five 20 ms Opus packets), as
/// mediasoup's AudioLevelObserver averages dBov over its interval; a packet without the
/// extension counts as silence. The reading falls by at most `decayPerWindow` dB a window, so
/// the gap between two words does not read as silence, and rises at once. Per packet: two
/// integer additions and a clock test.
struct AudioLevelMeter {
    /// 100 ms: short, so the active speaker sees speech start within about a window (the
    /// hand-over's latency is the detector's hold plus this), long enough to average a few packets.
    static let windowMicros: UInt64 = 100_000
    /// 30 dB a second: a pause between words (200 ms) costs 6 dB, speech at -20 dBov reads
    /// as silence (-50) a second after it stopped.
    static let decayPerWindow: Double = 3

    private var sum = 0
    private var count = 0
    private var windowStart: UInt64 = 0
    /// The level in dBov (-127 to 0), as of the last closed window.
    private(set) var dBov: Double = -127
    /// The last closed window's own mean, without the slow fall: whether there is voice now,
    /// for the active speaker (a cough's level falls for a second; its voice stops at once).
    private(set) var windowMean: Double = -127

    /// A packet arrived with `level` (nil: it carried none).
    @inline(__always)
    mutating func record(_ level: UInt8?, now: UInt64) {
        if now &- windowStart >= Self.windowMicros { close(now: now) }
        sum &+= Int(min(level ?? 127, 127))
        count &+= 1
    }

    /// The reading now: a stream that went quiet (no packets for a window or more) falls.
    func reading(now: UInt64) -> Double {
        let idle = idleWindows(now: now)
        guard idle > 1 else { return dBov }
        return max(-127, dBov - Self.decayPerWindow * Double(idle - 1))
    }

    /// The last window's mean now: silence once no packet came for a window or more.
    func voice(now: UInt64) -> Double {
        idleWindows(now: now) > 1 ? -127 : windowMean
    }

    /// Windows since the open one started (0 before any packet).
    private func idleWindows(now: UInt64) -> UInt64 {
        windowStart == 0 ? 0 : (now &- windowStart) / Self.windowMicros
    }

    private mutating func close(now: UInt64) {
        if count > 0 {
            // The window just closed, and any that passed with no packet since, each let it fall.
            let windows = Double(max(1, (now &- windowStart) / Self.windowMicros))
            windowMean = -Double(sum) / Double(count)
            dBov = max(windowMean, max(-127, dBov - Self.decayPerWindow * windows))
        }
        sum = 0
        count = 0
        windowStart = now
    }
}
