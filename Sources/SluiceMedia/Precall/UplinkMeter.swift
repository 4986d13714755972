import SluiceWire

/// The pre-call test's view of what the client sends: its media as received, in windows of
/// half a second. The uplink is the third-highest window (the client's own estimator, fed by
/// our transport-cc feedback, climbs until the path is full); loss counts each SSRC's missing
/// sequence numbers, over the windows that were not congested; jitter is RFC 3550's, of the
/// audio when there is some.
struct UplinkMeter {
    static let windowMicros: UInt64 = 500_000
    /// A window that lost more than this was the client overshooting the path: its loss is
    /// the queue's, not the link's.
    static let congestedLoss = 0.15
    static let maxSources = 8

    private struct Source {
        let ssrc: UInt32
        let clockRate: UInt32
        let audio: Bool
        var stats = ReceiveStreamStats()
        var expected: Int64 { Int64(stats.packets) + stats.cumulativeLost }
    }

    private var sources: [Source] = []
    private var windowStart: UInt64 = 0
    private var windowBytes = 0
    private var windowExpected: Int64 = 0
    private var windowReceived: Int64 = 0
    private var lostCounted: Int64 = 0
    private var expectedCounted: Int64 = 0
    /// Each closed window's rate (a test has about 20).
    private var windowKbps: [Double] = []

    /// The third-highest window: a shaper's burst allowance (and the client's start-up probes)
    /// lifts one or two windows over what the path carries for long.
    var bestKbps: Double? {
        guard !windowKbps.isEmpty else { return nil }
        let sorted = windowKbps.sorted(by: >)
        return sorted[min(2, sorted.count - 1)]
    }

    init() {
        sources.reserveCapacity(Self.maxSources)
        windowKbps.reserveCapacity(64)
    }

    /// One RTP packet of `size` bytes (after SRTP). `repair`: a retransmission or padding on
    /// an RTX stream, which takes room on the link but is not the media's sequence.
    mutating func record(ssrc: UInt32, sequence: UInt16, timestamp: UInt32, size: Int, clockRate: UInt32,
                         audio: Bool, repair: Bool, now: UInt64) {
        if windowStart == 0 { windowStart = now }
        if now >= windowStart + Self.windowMicros { closeWindow(now: now) }
        windowBytes += size + precallWireOverheadBytes
        guard !repair else { return }
        if let index = sources.firstIndex(where: { $0.ssrc == ssrc }) {
            sources[index].stats.record(sequence: sequence, timestamp: timestamp, size: size, clockRate: clockRate,
                                        now: now, keyFrame: false)
        } else if sources.count < Self.maxSources {
            var source = Source(ssrc: ssrc, clockRate: clockRate, audio: audio)
            source.stats.record(sequence: sequence, timestamp: timestamp, size: size, clockRate: clockRate,
                                now: now, keyFrame: false)
            sources.append(source)
        }
    }

    private mutating func closeWindow(now: UInt64) {
        let span = now - windowStart
        let kbps = Double(windowBytes) * 8 * 1000 / Double(max(span, 1))
        if windowKbps.count < 64 { windowKbps.append(kbps) }
        let expected = sources.reduce(Int64(0)) { $0 + $1.expected }
        let received = sources.reduce(Int64(0)) { $0 + Int64($1.stats.packets) }
        let expectedHere = expected - windowExpected
        let lostHere = max(0, expectedHere - (received - windowReceived))
        if expectedHere > 0, Double(lostHere) / Double(expectedHere) <= Self.congestedLoss {
            lostCounted += lostHere
            expectedCounted += expectedHere
        }
        windowExpected = expected
        windowReceived = received
        windowStart = now
        windowBytes = 0
    }

    /// Media packets seen (each SSRC's sequence), for a test that nothing arrived.
    var packets: UInt64 { sources.reduce(0) { $0 + $1.stats.packets } }

    var lossFraction: Double? {
        expectedCounted > 0 ? Double(lostCounted) / Double(expectedCounted) : nil
    }

    /// The audio's jitter when there is audio, else the first video stream's.
    var jitterMs: Double? {
        guard let source = sources.first(where: \.audio) ?? sources.first, source.stats.packets > 1 else { return nil }
        return source.stats.jitterMillis(clockRate: source.clockRate)
    }
}
