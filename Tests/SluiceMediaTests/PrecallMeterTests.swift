import SluiceRTP
import Testing
@testable import SluiceMedia

/// The pre-call test's two meters against known paths: the downlink ramp through a simulated
/// bottleneck (`BottleneckPath`, from SendSideEstimatorTests), the uplink meter with packets
/// whose rate, gaps and bursts are known.
struct DownlinkRampTests {
    /// Runs the ramp as `PrecallProbe` does: padding every 10 ms tick, feedback every 50 ms.
    private func run(_ ramp: inout DownlinkRamp, _ path: inout BottleneckPath, seconds: Double) {
        let start: Int64 = 1_000_000
        ramp.begin(now: UInt64(start))
        var now = start
        var carry = 0
        while now < start + Int64(seconds * 1_000_000) {
            ramp.tick(now: UInt64(now))
            carry += ramp.budget(tickMicros: 10_000)
            while carry > 0 {
                path.send(size: 280, at: now)
                carry -= 280 + precallWireOverheadBytes
            }
            now += 10_000
            if now % 50_000 == 0, let feedback = path.feedback(at: now) {
                ramp.received(feedback, history: path.history)
            }
        }
    }

    @Test func aBottleneckStopsTheRampAndIsTheReading() {
        var ramp = DownlinkRamp(maxKbps: 10_000)
        var path = BottleneckPath(capacityKbps: 3000, queueLimitMs: 150)
        run(&ramp, &path, seconds: 8)
        #expect(ramp.holding)
        let reading = ramp.bestAckedKbps ?? 0
        // The path counts payload bits; the reading adds the wire overhead of each packet.
        let truth = 3000.0 * Double(280 + precallWireOverheadBytes) / 280
        #expect(abs(reading - truth) / truth < 0.1, "read \(reading) kbit/s through \(truth)")
        #expect(ramp.rateKbps < reading, "held under what the path carried: \(ramp.rateKbps)")
        // The bottleneck's drops are congestion, not the link's loss.
        #expect((ramp.lossFraction ?? 1) < 0.01, "loss \(String(describing: ramp.lossFraction))")
    }

    @Test func aWidePathRampsToTheCeiling() {
        var ramp = DownlinkRamp(maxKbps: 6000)
        var path = BottleneckPath(capacityKbps: 50_000)
        run(&ramp, &path, seconds: 6)
        #expect(!ramp.holding)
        #expect(ramp.rateKbps == 6000)
        #expect((ramp.bestAckedKbps ?? 0) > 5000)
        #expect(ramp.lossFraction == 0)
    }

    @Test func noFeedbackNoReading() {
        var ramp = DownlinkRamp(maxKbps: 10_000)
        ramp.begin(now: 1)
        ramp.tick(now: 600_000)
        #expect(ramp.rateKbps == DownlinkRamp.startKbps * DownlinkRamp.rise)
        #expect(ramp.bestAckedKbps == nil && ramp.lossFraction == nil)
    }
}

struct UplinkMeterTests {
    /// `seconds` of packets of `size` bytes at `pps`, every `skip`-th sequence number missing.
    private func feed(_ meter: inout UplinkMeter, ssrc: UInt32, pps: Int, size: Int, seconds: Int,
                      skip: Int? = nil, audio: Bool = false, from start: UInt64 = 1_000_000) {
        let gap = UInt64(1_000_000 / pps)
        for i in 0..<(pps * seconds) {
            if let skip, i % skip == skip - 1 { continue }
            meter.record(ssrc: ssrc, sequence: UInt16(truncatingIfNeeded: i), timestamp: UInt32(i * 960),
                         size: size, clockRate: 48_000, audio: audio, repair: false, now: start + UInt64(i) * gap)
        }
    }

    @Test func rateAndLossOfASteadyStream() {
        var meter = UplinkMeter()
        // 200 packets a second of 1000 bytes, one in 20 missing: 5% loss.
        feed(&meter, ssrc: 7, pps: 200, size: 1000, seconds: 6, skip: 20)
        let truth = 200.0 * 0.95 * Double(1000 + precallWireOverheadBytes) * 8 / 1000
        let reading = meter.bestKbps ?? 0
        #expect(abs(reading - truth) / truth < 0.05, "read \(reading) of \(truth)")
        #expect(abs((meter.lossFraction ?? 0) - 0.05) < 0.005)
    }

    @Test func aBurstWindowIsNotTheReading() {
        var meter = UplinkMeter()
        // 100 packets a second of 1000 bytes, and in one half second a burst of 4 times that.
        feed(&meter, ssrc: 7, pps: 100, size: 1000, seconds: 6)
        feed(&meter, ssrc: 9, pps: 400, size: 1000, seconds: 1, from: 2_000_000)
        let steady = 100.0 * Double(1000 + precallWireOverheadBytes) * 8 / 1000
        let reading = meter.bestKbps ?? 0
        #expect(reading < steady * 2, "one burst must not be the uplink: \(reading) against \(steady)")
    }

    @Test func repairsTakeRoomButAreNoSequence() {
        var meter = UplinkMeter()
        for i in 0..<1000 {
            meter.record(ssrc: 3, sequence: UInt16(i * 7), timestamp: 0, size: 500, clockRate: 90_000, audio: false,
                         repair: true, now: 1_000_000 + UInt64(i) * 5000)
        }
        #expect(meter.packets == 0 && meter.lossFraction == nil)
        #expect((meter.bestKbps ?? 0) > 0)
    }

    @Test func jitterIsTheAudios() {
        var meter = UplinkMeter()
        feed(&meter, ssrc: 5, pps: 50, size: 100, seconds: 2, audio: true)
        #expect(meter.jitterMs != nil)
        #expect((meter.jitterMs ?? 99) < 1, "evenly spaced audio has no jitter")
    }
}
