/// Bandwidth probing for one player: when its estimate holds it below the layer it asked
/// for, and it reports no loss, pad up to a higher layer's rate for a moment. A
/// receiver-side estimator (REMB) never rises far above what it receives, so without this a
/// player would never climb back. The consumer sends the padding (`RTPSender.sendPadding`);
/// this decides when, how much, and whether the probe came through clean.
struct Prober {
    /// A REMB takes a while to show what a probe did; transport-cc feedback shows queueing
    /// within a feedback interval, so those probes are short.
    static let probeMicros: UInt64 = 2_000_000
    static let feedbackProbeMicros: UInt64 = 600_000
    static let spacingMicros: UInt64 = 1_000_000
    /// Loss the player may report before a probe is called off.
    static let lossLimit = 0.02
    /// A probe tests at most this multiple of the estimate (or the lowest layer's rate with
    /// headroom, if more). A probe straight for the layer asked for, over a link that could not
    /// carry even the lowest layer, filled its queue for the probe's length every two seconds,
    /// and the key frames in it were lost with the padding (interop/test_bandwidth.py); a
    /// lifted cap is found in a few steps instead of one.
    static let maxStep = 3.0

    /// Padding rate on top of what is sent (kbit/s), and the total the probe tests.
    private(set) var paddingKbps: Double = 0
    private(set) var totalKbps: Double = 0
    /// When the running probe ends; 0: none runs.
    private(set) var until: UInt64 = 0
    private(set) var start: UInt64 = 0
    private var clean = true
    /// Bytes the running probe may still send. Each tick adds its share of the padding rate
    /// and each padding packet takes its size, so the rate holds when a packet is larger than
    /// a tick's share: a padding packet is about 280 bytes and 50 kbit/s is 62 bytes per
    /// 10 ms, and one packet a tick made that probe 224 kbit/s.
    private var credit = 0
    private var rembAtStart: Double = 0
    private var lastEnd: UInt64 = 0

    var isProbing: Bool { until > 0 }

    /// The player showed loss or queueing while the probe ran.
    mutating func spoil() {
        if until > 0 { clean = false }
    }

    /// Called at each layer choice. Starts a probe when bandwidth holds the player below the
    /// layer its constraints alone would give; a running probe is called off by loss.
    mutating func consider(choice: LayerSelector.Choice, layers: [LayerSelector.Layer], constraints: VideoConstraints,
                           current: Int?, remoteFractionLost: Double, estimate: inout BandwidthEstimate, now: UInt64) {
        if until > now {
            if remoteFractionLost > Self.lossLimit {
                clean = false
                _ = stop(estimate: &estimate, now: now)
            }
            return
        }
        guard choice.reason == .bandwidth, let current, remoteFractionLost <= Self.lossLimit,
              now - lastEnd >= Self.spacingMicros,
              let ideal = LayerSelector.choose(layers: layers, constraints: constraints, bandwidthKbps: nil),
              ideal.layer != current else { return }
        let ranked = layers.filter(\.active).sorted(by: LayerSelector.ranksBelow)
        guard let position = ranked.firstIndex(where: { $0.index == current }), position + 1 < ranked.count else { return }
        // With transport-cc the probe's own arrivals show whether the path holds it, so probe
        // straight for the layer asked for; a REMB is only trusted one layer at a time.
        let feedback = estimate.usesTransportFeedback
        let up = feedback ? (ranked.first { $0.index == ideal.layer } ?? ranked[position + 1]) : ranked[position + 1]
        let ceiling = max((estimate.kbps ?? 0) * Self.maxStep, ranked[0].bitrateKbps * 1.3)
        totalKbps = min(up.bitrateKbps * (feedback ? 1.3 : 1.4), ceiling)
        paddingKbps = max(50, totalKbps - ranked[position].bitrateKbps)
        start = now
        until = now + (feedback ? Self.feedbackProbeMicros : Self.probeMicros)
        credit = 0
        clean = true
        rembAtStart = estimate.remb ?? 0
    }

    /// Ends the running probe and tells the estimate what it proved. True when it was clean.
    mutating func stop(estimate: inout BandwidthEstimate, now: UInt64) -> Bool {
        let wasClean = clean && (estimate.usesTransportFeedback
            ? !estimate.sendSide.congested(since: start) && estimate.sendSide.lossFraction <= Self.lossLimit
            : (estimate.remb ?? 0) >= rembAtStart * 0.9)
        estimate.probeEnded(totalKbps: totalKbps, clean: wasClean, now: now)
        until = 0
        lastEnd = now
        return wasClean
    }

    /// The padding bytes due in one worker tick of `tickMicros`.
    func budget(tickMicros: UInt64) -> Int {
        Int(paddingKbps * 1000 / 8 * Double(tickMicros) / 1_000_000)
    }

    /// A tick of `tickMicros` passed: what the probe may send now (nothing while it is still
    /// paying for a packet). Credit a tick could not spend (no frame boundary) is kept for
    /// at most four ticks, so a wait does not end in a burst.
    mutating func tickCredit(tickMicros: UInt64) -> Int {
        let share = budget(tickMicros: tickMicros)
        credit = min(credit + share, 4 * share)
        return credit
    }

    /// Padding of `bytes` went out.
    mutating func spent(_ bytes: Int) {
        credit -= bytes
    }
}
