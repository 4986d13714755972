import Testing
@testable import SluiceMedia

struct BandwidthEstimateTests {
    @Test func followsREMBWithoutProbes() {
        var e = BandwidthEstimate()
        #expect(e.kbps == nil)
        e.received(remb: 800, now: 0)
        #expect(e.kbps == 800)
    }

    @Test func cleanProbeRaisesTheEstimateUntilCongestion() {
        var e = BandwidthEstimate()
        e.received(remb: 300, now: 0)
        e.probeEnded(totalKbps: 900, clean: true, now: 1_000_000)
        #expect(e.kbps == 900)
        e.received(remb: 320, now: 2_000_000)          // the REMB creeps up: the probe stands
        #expect(e.kbps == 900)
        e.received(remb: 200, now: 3_000_000)          // it falls: congestion, the probe goes
        #expect(e.kbps == 200)
    }

    @Test func lossWithdrawsTheProbeAndCapsTheEstimate() {
        var e = BandwidthEstimate()
        e.received(remb: 2000, now: 0)
        e.probeEnded(totalKbps: 3000, clean: true, now: 0)
        e.received(lossFraction: 0.3, sentKbps: 1500)
        #expect(e.kbps == 1050)                         // 1500 sent, 30% lost
        e.received(lossFraction: 0, sentKbps: 1500)
        #expect(e.kbps == 2000)
    }

    @Test func dirtyProbeChangesNothing() {
        var e = BandwidthEstimate()
        e.received(remb: 300, now: 0)
        e.probeEnded(totalKbps: 900, clean: false, now: 0)
        #expect(e.kbps == 300)
    }

    @Test func probeExpires() {
        var e = BandwidthEstimate()
        e.received(remb: 300, now: 0)
        e.probeEnded(totalKbps: 900, clean: true, now: 0)
        e.received(remb: 310, now: BandwidthEstimate.probeValidityMicros + 1)
        #expect(e.kbps == 310)
    }
}
