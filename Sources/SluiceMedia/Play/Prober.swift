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

    /// Padding rate on top of what is sent (kbit/s), and the total the probe tests.
    private(set) var paddingKbps: Double = 0
    private(set) var totalKbps: Double = 0
    /// When the running probe ends; 0: none runs.
    private(set) var until: UInt64 = 0
    private(set) var start: UInt64 = 0
    private var clean = true
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
        totalKbps = up.bitrateKbps * (feedback ? 1.3 : 1.4)
        paddingKbps = max(50, totalKbps - ranked[position].bitrateKbps)
        start = now
        until = now + (feedback ? Self.feedbackProbeMicros : Self.probeMicros)
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
}
