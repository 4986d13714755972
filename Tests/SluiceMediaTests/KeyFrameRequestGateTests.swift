import Testing
@testable import SluiceMedia

struct KeyFrameRequestGateTests {
    typealias Gate = KeyFrameRequestGate

    /// Feeds the gate a script of requests (at a time) and key frames (nil), and returns which
    /// requests it let through.
    private func run(_ script: [UInt64?]) -> [Bool] {
        var gate = Gate()
        var allowed: [Bool] = []
        for step in script {
            if let now = step { allowed.append(gate.shouldRequest(now: now)) } else { gate.keyFrameArrived() }
        }
        return allowed
    }

    @Test func aBurstCostsOneRequestUntilTheKeyFrameArrives() {
        let spacing = Gate.minimumSpacingMicros
        // Players joining meanwhile ride on the same request, even past the minimum spacing;
        // once the key frame is in, the next one asks again.
        #expect(run([1_000, 2_000, 1_000 + spacing + 1, nil, 1_000 + spacing + 2]) == [true, false, false, true])
    }

    @Test func afterTheKeyFrameANewComerWaitsOnlyTheMinimumSpacing() {
        let spacing = Gate.minimumSpacingMicros
        #expect(run([10_000, nil, 10_000 + spacing - 1, 10_000 + spacing]) == [true, false, true])
    }

    @Test func anUnansweredRequestIsRepeated() {
        let retry = Gate.retryMicros
        #expect(run([5, 5 + retry - 1, 5 + retry, 6 + retry]) == [true, false, true, false])
    }

    @Test func aRequestInsideABrowsersWindowIsRepeatedWhenTheWindowEnds() {
        let window = Gate.publisherWindowMicros
        // Answered at 0; asked again at 100 ms, inside the browser's 300 ms, so it is ignored
        // there: repeated at the window's end rather than 300 ms after it was sent.
        #expect(run([0, nil, 100_000, window - 1, window]) == [true, true, false, true])
        // Asked outside the window: an unanswered request waits the full retry interval.
        let late = window + 10_000
        #expect(run([0, nil, late, late + Gate.retryMicros - 1, late + Gate.retryMicros]) == [true, true, false, true])
    }

    @Test func theFirstRequestGoesAtOnceEvenAtTimeZero() {
        // A key frame before anyone asked changes nothing.
        #expect(run([nil, 0, 1]) == [true, false])
    }
}
