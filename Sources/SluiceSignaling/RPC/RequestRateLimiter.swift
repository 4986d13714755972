/// A per-session token bucket of `rate` messages per second (burst: one second's worth).
///
/// Staying over the limit: each refused message goes into an overage bucket that drains at
/// `rate` per second. When it holds more than two seconds' worth (2 × rate) the session is
/// closed (4008). A client sending at twice its rate or less is never closed (its refusals
/// drain as fast as they come); at three times its rate it is closed after about two
/// seconds, and a burst of 3 × rate messages at once closes it at once.
struct RequestRateLimiter {
    enum Verdict: Equatable {
        case allowed
        /// Answer 1008.
        case refused
        /// Answer 1008 and close with 4008.
        case exceeded
    }

    let rate: Double
    private var tokens: Double
    private var overage: Double = 0
    private var lastMicros: UInt64?

    /// `rate` 0 disables the limit.
    init(requestsPerSecond: Int) {
        rate = Double(max(0, requestsPerSecond))
        tokens = rate
    }

    mutating func admit(nowMicros: UInt64) -> Verdict {
        guard rate > 0 else { return .allowed }
        let previous = lastMicros ?? nowMicros
        if nowMicros > previous {
            let seconds = Double(nowMicros - previous) / 1_000_000
            tokens = min(rate, tokens + seconds * rate)
            overage = max(0, overage - seconds * rate)
        }
        lastMicros = max(previous, nowMicros)
        if tokens >= 1 {
            tokens -= 1
            return .allowed
        }
        overage += 1
        return overage > 2 * rate ? .exceeded : .refused
    }
}
