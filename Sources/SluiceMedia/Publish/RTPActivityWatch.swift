/// When a publisher's media has stopped for good while its transport stays up (a camera
/// that hangs, a process that stops sending): no RTP that carries media for
/// `rtc.rtpTimeoutSeconds`, counted from the last such packet, or from the first packet of
/// any kind (PUBLISHING) when none followed. Padding-only packets, RTCP and ICE consent do
/// not count: none of them gives a player anything. Decided once a second, off the packet
/// path; it says so once.
struct RTPActivityWatch {
    /// 0: never.
    let timeoutMicros: UInt64
    private(set) var expired = false

    init(timeoutMicros: UInt64) {
        self.timeoutMicros = timeoutMicros
    }

    /// True exactly once: at the first check that finds the last media older than the timeout.
    /// `lastMediaMicros` is nil before the first packet, when nothing is watched yet.
    mutating func hasExpired(lastMediaMicros: UInt64?, now: UInt64) -> Bool {
        guard timeoutMicros > 0, !expired, let last = lastMediaMicros, now > last,
              now - last >= timeoutMicros else { return false }
        expired = true
        return true
    }
}
