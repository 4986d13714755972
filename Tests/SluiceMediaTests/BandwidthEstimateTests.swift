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

    /// A REMB that stays low is not congestion (a receiver estimates near what it gets); one
    /// that falls is, for a while.
    @Test func onlyAFallingREMBIsCongestion() {
        var e = BandwidthEstimate()
        for second in 0..<10 { e.received(remb: 50, now: UInt64(second) * 1_000_000) }
        #expect(!e.congested(now: 10_000_000))
        e.received(remb: 2000, now: 11_000_000)
        e.received(remb: 600, now: 12_000_000)
        #expect(e.congested(now: 12_000_000))
        #expect(e.congested(now: 12_000_000 + BandwidthEstimate.rembCongestionMicros - 1))
        #expect(!e.congested(now: 12_000_000 + BandwidthEstimate.rembCongestionMicros))
        e.received(lossFraction: 0.05, sentKbps: 600)
        #expect(e.congested(now: 40_000_000))
    }
}
