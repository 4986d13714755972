/// Bounds a worker's log lines about bad network input: one line per event, but a flood of
/// bad connections must not flood the log. At most `maxLines` per window; the next line
/// after a window with suppressed ones says how many were held back (`LogField.suppressed`).
struct WorkerLogLimiter {
    let maxLines: Int
    let windowMicros: UInt64
    private var windowStart: UInt64 = 0
    private var lines = 0
    private var suppressed = 0

    init(maxLines: Int = 20, windowMicros: UInt64 = 10_000_000) {
        self.maxLines = maxLines
        self.windowMicros = windowMicros
    }

    /// The line to write for `message` now with how many were held back before it, or nil to
    /// leave it out.
    mutating func line(_ message: @autoclosure () -> String, now: UInt64) -> (text: String, heldBack: Int)? {
        if now >= windowStart &+ windowMicros {
            windowStart = now
            lines = 0
        }
        guard lines < maxLines else {
            suppressed += 1
            return nil
        }
        lines += 1
        defer { suppressed = 0 }
        return (message(), suppressed)
    }
}
