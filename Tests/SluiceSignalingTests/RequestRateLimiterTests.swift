@testable import SluiceSignaling
import Testing

@Suite struct RequestRateLimiterTests {
    @Test func burstThenRefill() {
        var limiter = RequestRateLimiter(requestsPerSecond: 4)
        let start: UInt64 = 5_000_000
        for _ in 0..<4 { #expect(limiter.admit(nowMicros: start) == .allowed) }
        #expect(limiter.admit(nowMicros: start) == .refused)
        #expect(limiter.admit(nowMicros: start + 250_000) == .allowed)
        #expect(limiter.admit(nowMicros: start + 250_000) == .refused)
    }

    @Test func twiceTheRateIsNeverClosed() {
        var limiter = RequestRateLimiter(requestsPerSecond: 10)
        var now: UInt64 = 0
        for _ in 0..<2000 {
            now += 50_000  // 20 per second
            #expect(limiter.admit(nowMicros: now) != .exceeded)
        }
    }

    @Test func threeTimesTheRateIsClosedAfterAboutTwoSeconds() {
        var limiter = RequestRateLimiter(requestsPerSecond: 10)
        var now: UInt64 = 0
        var closedAt: UInt64?
        for _ in 0..<300 {
            now += 33_334  // 30 per second
            if limiter.admit(nowMicros: now) == .exceeded {
                closedAt = now
                break
            }
        }
        let seconds = Double(closedAt ?? 0) / 1_000_000
        #expect(seconds > 1.5 && seconds < 3)
    }

    @Test func zeroDisablesAndTimeGoingBackIsHarmless() {
        var unlimited = RequestRateLimiter(requestsPerSecond: 0)
        for _ in 0..<1000 { #expect(unlimited.admit(nowMicros: 0) == .allowed) }
        var limiter = RequestRateLimiter(requestsPerSecond: 1)
        #expect(limiter.admit(nowMicros: 10_000_000) == .allowed)
        #expect(limiter.admit(nowMicros: 1) == .refused)
    }
}
