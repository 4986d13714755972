import Testing
@testable import SluiceMedia

struct ConnectionQualityTests {
    @Test(arguments: [
        (0.0, 1.0, 2.0, ConnectionQuality.Level.excellent),
        (0.01, 10.0, 50.0, .excellent),
        (0.05, 20.0, 100.0, .good),
        (0.10, 30.0, 200.0, .average),
        (0.15, 50.0, 300.0, .fair),
        (0.50, 100.0, 800.0, .poor),
    ])
    func levels(loss: Double, jitter: Double, rtt: Double, level: ConnectionQuality.Level) {
        let quality = ConnectionQuality(lossFraction: loss, jitterMs: jitter, rttMs: rtt)
        #expect(quality.level == level, "score \(quality.score)")
        #expect((1.0...4.5).contains(quality.score))
    }

    @Test func worseNetworkNeverScoresHigher() {
        var last = 5.0
        for step in 0...20 {
            let q = ConnectionQuality(lossFraction: Double(step) / 40, jitterMs: Double(step) * 5, rttMs: Double(step) * 40)
            #expect(q.score <= last)
            last = q.score
        }
    }
}
