import SluiceRTP
import SluiceWire

/// A player's available bandwidth, estimated on the server from the player's transport-cc
/// feedback: when each packet we sent arrived, or that it did not.
///
/// - Delay: `DelayTrendDetector` sees a queue building before any packet is lost; overuse
///   cuts the estimate to 85% of what the player actually received (the acked rate).
/// - Loss: a window clearly above 10% cuts the estimate once; under 2% it may rise.
/// - Rise: 8% a second while nothing is wrong, never far above what is being acked (a path
///   that was never tried is not known to work); a clean probe raises it at once.
///
/// There is no figure until the first sign of congestion: with none, nothing limits the
/// player, so a player on a good path starts on the layer it asked for.
struct SendSideEstimator {
    private(set) var kbps: Double?
    private(set) var ackedKbps: Double?
    private(set) var lossFraction = 0.0
    /// When the detector or the loss last said the path is full (µs, our clock).
    private(set) var lastCongestion: UInt64 = 0
    private(set) var feedbackReceived: UInt64 = 0

    private var detector = DelayTrendDetector()
    private var unwrapper = SequenceUnwrapper()
    private var highestProcessed: Int64 = -1
    private var lastDecrease: UInt64 = 0
    private var lastUpdate: UInt64 = 0
    // The acked-rate window, by arrival time in the player's clock.
    private var ackedBytes = 0
    private var ackedWindowStart: Int64 = -1
    private var ackedWindowEnd: Int64 = -1
    // The loss window.
    private var windowLost = 0
    private var windowTotal = 0
    private var lossWindowStart: UInt64 = 0

    static let ackedWindowMicros: Int64 = 500_000
    static let lossWindowMicros: UInt64 = 500_000
    static let lossWindowPackets = 200
    static let decreaseSpacingMicros: UInt64 = 300_000

    var delaySignal: DelayTrendDetector.Signal { detector.signal }

    /// Takes one feedback packet; `history` gives our send time and size of each sequence.
    mutating func received(_ feedback: RTCPTransportWideCC, history: SendHistory, sentKbps: Double, now: UInt64) {
        feedbackReceived += 1
        feedback.forEachArrival { sequenceNumber, arrival in
            let sequence = unwrapper.unwrap(sequenceNumber)
            // Each packet once: a later feedback may repeat what an earlier one reported.
            guard sequence > highestProcessed, let sent = history.lookup(sequenceNumber) else { return }
            highestProcessed = sequence
            windowTotal += 1
            guard let arrival else {
                windowLost += 1
                return
            }
            detector.add(sendMicros: Int64(sent.sendMicros), arrivalMicros: arrival)
            addAcked(bytes: sent.size, arrival: arrival)
        }
        // Half a second and 200 packets at least, or 2 s: a few packets lost at a low rate
        // are not 10% loss, and neither is a short unlucky run of random loss. At 5% random
        // loss a window of 50 to 100 packets shows over 10% once in 25 to 90 windows, which
        // cut a clean path's estimate below its layer for good (the 2% to 10% band holds it);
        // one of 200 does so once in 860 (docs/design.md, "Random loss and the estimate").
        if windowTotal > 0, now >= lossWindowStart + Self.lossWindowMicros,
           windowTotal >= Self.lossWindowPackets || now >= lossWindowStart + 4 * Self.lossWindowMicros {
            lossFraction = Double(windowLost) / Double(windowTotal)
            if Self.isHeavyLoss(lost: windowLost, of: windowTotal), sentKbps > 0 {
                // Once per window: the same window applied at every feedback cut again and
                // again from a sent rate that was itself falling with each layer step down.
                lastCongestion = now
                kbps = min(kbps ?? .infinity, sentKbps * (1 - 0.5 * lossFraction))
                lastDecrease = now
            }
            windowLost = 0
            windowTotal = 0
            lossWindowStart = now
        }
        update(sentKbps: sentKbps, now: now)
    }

    /// More than 10% lost, and by more than chance would give a path that loses less: the
    /// lost count beyond 1.65 standard deviations of a 10% binomial (one-sided 95%). A 2 s
    /// window of a low layer holds only 50 to 100 packets, and at 5% random loss such a
    /// window went over 10% about once in 30 (docs/design.md, "Random loss and the estimate").
    static func isHeavyLoss(lost: Int, of total: Int) -> Bool {
        let n = Double(total)
        return Double(lost) > 0.1 * n + 1.65 * (0.09 * n).squareRoot()
    }

    private mutating func addAcked(bytes: Int, arrival: Int64) {
        if ackedWindowStart < 0 { ackedWindowStart = arrival }
        ackedBytes += bytes
        ackedWindowEnd = max(ackedWindowEnd, arrival)
        let span = ackedWindowEnd - ackedWindowStart
        if span >= Self.ackedWindowMicros {
            ackedKbps = Double(ackedBytes) * 8 * 1000 / Double(span)
            ackedBytes = 0
            ackedWindowStart = ackedWindowEnd
        }
    }

    private mutating func update(sentKbps: Double, now: UInt64) {
        defer { lastUpdate = now }
        let received = ackedKbps ?? sentKbps
        if detector.signal == .overuse {
            lastCongestion = now
            if now >= lastDecrease + Self.decreaseSpacingMicros, received > 0 {
                kbps = min(kbps ?? .infinity, 0.85 * received)
                lastDecrease = now
            }
            return
        }
        // Rise, unless delay is still draining (underuse) or loss is noticeable (heavy loss
        // cut when its window closed).
        guard var value = kbps, detector.signal == .normal, lossFraction < 0.02, lastUpdate > 0 else { return }
        let seconds = Double(min(now > lastUpdate ? now - lastUpdate : 0, 1_000_000)) / 1_000_000
        let ceiling = 1.5 * received + 100
        if value < ceiling {
            value = min(ceiling, value * (1 + 0.08 * seconds) + 10 * seconds)
        }
        kbps = value
    }

    /// A probe at `totalKbps` passed without queueing or loss: the path carries it.
    mutating func probeSucceeded(totalKbps: Double) {
        guard let value = kbps else { return }
        kbps = max(value, totalKbps)
    }

    /// The path showed congestion at or after `since`.
    func congested(since: UInt64) -> Bool {
        lastCongestion != 0 && lastCongestion >= since
    }
}
