import Testing
@testable import SluiceTransport

struct WorkerLogLimiterTests {
    @Test func atMostMaxLinesPerWindowThenSaysHowManyWereLeftOut() {
        var limiter = WorkerLogLimiter(maxLines: 3, windowMicros: 1_000_000)
        let first = (0..<10).compactMap { limiter.line("bad \($0)", now: 100) }
        #expect(first.map(\.text) == ["bad 0", "bad 1", "bad 2"])
        #expect(first.map(\.heldBack) == [0, 0, 0])
        // The next window: the first line carries the count of the seven held back.
        let next = limiter.line("bad 10", now: 1_000_100)
        #expect(next?.text == "bad 10" && next?.heldBack == 7)
        #expect(limiter.line("bad 11", now: 1_000_200)?.heldBack == 0)
    }
}
