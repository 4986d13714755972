@testable import SluiceMedia
import Testing

@Suite struct PublishCapWatchTests {
    let second: UInt64 = 1_000_000

    @Test func aCapIsExceededAfterFiveSecondsOverItAndReportedOnce() {
        var watch = PublishCapWatch(caps: PublishCaps(maxWidth: 640, maxHeight: 480, maxFps: 15))
        var reports: [(UInt64, [PublishCapWatch.Exceeded])] = []
        for t in 0...12 {
            let out = watch.observe(width: 1280, height: 480, fps: 15, now: UInt64(t) * second)
            if !out.isEmpty { reports.append((UInt64(t), out)) }
        }
        #expect(reports.count == 1)
        #expect(reports.first?.0 == 5)
        #expect(reports.first?.1 == [.init(limit: .maxWidth, value: 1280, max: 640)])
    }

    @Test func aSecondWithinTheCapRestartsTheClockAndRearmsTheReport() {
        var watch = PublishCapWatch(caps: PublishCaps(maxHeight: 360))
        var reported: [Int] = []
        let heights = [720, 720, 720, 720, 360, 720, 720, 720, 720, 720, 720, 360, 720, 720, 720, 720, 720, 720]
        for (t, h) in heights.enumerated() where !watch.observe(width: 1280, height: h, fps: 30, now: UInt64(t) * second).isEmpty {
            reported.append(t)
        }
        // Over from t=5 (reported at t=10), within at 11, over again from 12 (reported at 17).
        #expect(reported == [10, 17])
    }

    @Test func frameRateHasAMarginOfTenPercent() {
        var watch = PublishCapWatch(caps: PublishCaps(maxFps: 30))
        for t in 0...10 { #expect(watch.observe(width: 640, height: 480, fps: 32.9, now: UInt64(t) * second).isEmpty) }
        var out: [PublishCapWatch.Exceeded] = []
        for t in 11...16 { out += watch.observe(width: 640, height: 480, fps: 60, now: UInt64(t) * second) }
        #expect(out == [.init(limit: .maxFps, value: 60, max: 30)])
    }

    @Test func noCapsNeverReport() {
        var watch = PublishCapWatch(caps: PublishCaps())
        for t in 0...20 { #expect(watch.observe(width: 4096, height: 2160, fps: 120, now: UInt64(t) * second).isEmpty) }
    }
}
