import Testing
@testable import SluiceDataChannel

/// The per-session allowance: a second's burst, a steady refill, and one notice per episode.
@Suite struct SessionRateLimitTests {
    @Test func takesABurstThenRefillsAtTheRate() {
        var limit = SessionRateLimit(messagesPerSecond: 10, bytesPerSecond: 0, now: 1_000_000)
        for _ in 0..<10 { #expect(limit.admit(count: 100, now: 1_000_000) == .admitted) }
        #expect(limit.admit(count: 100, now: 1_000_000) == .dropped(newEpisode: true))
        #expect(limit.admit(count: 100, now: 1_050_000) == .dropped(newEpisode: false))
        // 100 ms later one more token has come in (10 per second).
        #expect(limit.admit(count: 100, now: 1_150_000) == .admitted)
        #expect(limit.admit(count: 100, now: 1_150_000) == .dropped(newEpisode: false))
        // After a clean second, the next drop is a new episode.
        for _ in 0..<10 { _ = limit.admit(count: 1, now: 3_000_000) }
        #expect(limit.admit(count: 1, now: 3_000_000) == .dropped(newEpisode: true))
    }

    @Test func limitsBytes() {
        var limit = SessionRateLimit(messagesPerSecond: 0, bytesPerSecond: 1000, now: 0)
        #expect(limit.admit(count: 600, now: 0) == .admitted)
        #expect(limit.admit(count: 600, now: 0) == .dropped(newEpisode: true))
        #expect(limit.admit(count: 400, now: 0) == .admitted)
        // A message over a second's bytes passes once the bucket is full again.
        #expect(limit.admit(count: 5000, now: 500_000) == .dropped(newEpisode: false))
        #expect(limit.admit(count: 5000, now: 2_000_000) == .admitted)
    }

    @Test func zeroMeansNoLimit() {
        var limit = SessionRateLimit(messagesPerSecond: 0, bytesPerSecond: 0, now: 0)
        for _ in 0..<10_000 { #expect(limit.admit(count: 1 << 20, now: 0) == .admitted) }
    }
}
