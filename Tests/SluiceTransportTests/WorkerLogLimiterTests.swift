import Testing
@testable import SluiceTransport

struct WorkerLogLimiterTests {
    @Test func atMostMaxLinesPerWindowThenSaysHowManyWereLeftOut() {
        var limiter = WorkerLogLimiter(maxLines: 3, windowMicros: 1_000_000)
        let first = (0..<10).compactMap { limiter.line("bad \($0)", now: 100) }
        #expect(first == ["bad 0", "bad 1", "bad 2"])
        // The next window: the first line carries the count of the seven left out.
        #expect(limiter.line("bad 10", now: 1_000_100) == "bad 10 (7 similar lines left out before this one)")
        #expect(limiter.line("bad 11", now: 1_000_200) == "bad 11")
    }
}
