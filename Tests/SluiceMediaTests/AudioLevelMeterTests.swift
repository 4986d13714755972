import Testing
@testable import SluiceMedia

/// The smoothed audio level: a window's mean, a rise at once, a fall of at most 3 dB a window,
/// a packet without the extension counted as silence.
struct AudioLevelMeterTests {
    private let packet: UInt64 = 20_000  // one Opus packet every 20 ms

    /// `levels` one per packet from `start`, then the reading when the next window opens.
    private func feed(_ meter: inout AudioLevelMeter, _ levels: [UInt8?], from start: UInt64) -> UInt64 {
        var now = start
        for level in levels {
            meter.record(level, now: now)
            now += packet
        }
        return now
    }

    @Test func aSteadySpeakerReadsItsLevel() {
        var meter = AudioLevelMeter()
        var now = feed(&meter, Array(repeating: 30, count: 10), from: 1_000_000)
        now = feed(&meter, [30], from: now)  // opens the next window: the first closes
        #expect(meter.dBov == -30)
        #expect(meter.reading(now: now) == -30)
    }

    @Test func aWindowIsTheMeanOfItsPackets() {
        var meter = AudioLevelMeter()
        let now = feed(&meter, [20, 20, 20, 40, 40], from: 1_000_000)
        _ = feed(&meter, [40], from: now)
        #expect(meter.dBov == -28)
    }

    /// After speech, silence falls 3 dB a window, not at once; speech again rises at once.
    @Test func silenceFallsSlowlySpeechRisesAtOnce() {
        var meter = AudioLevelMeter()
        var now = feed(&meter, Array(repeating: 20, count: 10), from: 1_000_000)
        now = feed(&meter, Array(repeating: 127, count: 10), from: now)
        now = feed(&meter, Array(repeating: 127, count: 10), from: now)
        #expect(meter.dBov == -29)  // three silent windows closed
        #expect(meter.voice(now: now) == -127)  // the window's own mean: silence at once
        now = feed(&meter, Array(repeating: 25, count: 10), from: now)
        _ = feed(&meter, [25], from: now)
        #expect(meter.dBov == -25)
    }

    /// A publisher whose packets stop carrying the extension reads as silence, in steps.
    @Test func packetsWithoutTheExtensionCountAsSilence() {
        var meter = AudioLevelMeter()
        var now = feed(&meter, Array(repeating: 10, count: 10), from: 1_000_000)
        for _ in 0..<40 { now = feed(&meter, Array(repeating: nil, count: 10), from: now) }
        #expect(meter.dBov == -127)
    }

    /// No packets at all (the publisher stopped sending): the reading falls with the clock.
    @Test func aStreamThatStoppedFalls() {
        var meter = AudioLevelMeter()
        let now = feed(&meter, Array(repeating: 10, count: 10), from: 1_000_000)
        _ = feed(&meter, [10], from: now)
        #expect(meter.reading(now: now + 1_000_000) == -10 - 3 * 9)
        #expect(meter.reading(now: now + 60_000_000) == -127)
    }
}
