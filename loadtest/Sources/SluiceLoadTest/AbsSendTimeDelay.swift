import SluiceRTP

/// One-way delay from an abs-send-time stamp (6.18 fixed point seconds, 24 bits, so it wraps
/// every 64 s) and a receive time on the same clock (CLOCK_MONOTONIC).
public enum AbsSendTimeDelay {
    /// µs from `sent` to `now`; nil for a stamp ahead of `now` by more than rounding (another
    /// clock) or older than half the wrap (32 s), which cannot be told apart.
    public static func micros(sent: UInt32, now: UInt64) -> UInt64? {
        let received = AbsSendTime.value(micros: now)
        let units = (received &- sent) & 0xff_ffff
        // The stamp and `received` both round down to 1/262144 s: a stamp taken within a unit
        // before `now` can read one unit ahead of it.
        if units == 0xff_ffff { return 0 }
        guard units < 1 << 23 else { return nil }
        // Parenthesized: Swift binds `>>` tighter than `*`.
        return (UInt64(units) * 1_000_000) >> 18
    }
}
