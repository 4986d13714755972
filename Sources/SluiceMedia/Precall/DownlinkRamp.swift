import SluiceRTP
import SluiceWire

/// The pre-call test's downlink probe: how fast the server pads towards the client, and what
/// the client's transport-cc feedback says each step of it did.
///
/// The rate starts at 300 kbit/s and rises by half every 500 ms, up to `maxKbps`. A step is
/// congested when most of its packets queued over 30 ms (against the least one-way delay
/// seen) or it lost over 15%: a full path shows a queue before it drops. At the first sign the
/// rate falls to 80% of the best acknowledged rate and stays, so the rest of the test measures
/// loss and jitter on a path that is not full. The downlink is the best acknowledged rate over
/// half a second (by arrival time, in the client's clock); loss counts only the steps that were
/// not congested, so a bottleneck's drops are not taken for the link's loss.
struct DownlinkRamp {
    static let stepMicros: UInt64 = 500_000
    static let startKbps = 300.0
    static let rise = 1.5
    static let holdShare = 0.8
    static let queueLimitMicros: Int64 = 30_000
    static let congestedLoss = 0.15
    static let maxSteps = 24
    static let ackedWindowMicros: Int64 = 500_000

    private struct Step {
        var total = 0
        var lost = 0
        var received = 0
        var queued = 0
        /// Loss is judged over 100 packets at least: 5% random loss makes 15% of 10 or 20
        /// packets often enough, of 100 about once in 10,000.
        var congested: Bool {
            (total >= 100 && Double(lost) / Double(total) > DownlinkRamp.congestedLoss)
                || (received >= 20 && queued * 2 > received)
        }
    }

    let maxKbps: Double
    private(set) var rateKbps: Double
    private(set) var holding = false
    private var start: UInt64 = 0
    private var currentStep = 0
    private var steps = [Step](repeating: Step(), count: maxSteps)
    private var unwrapper = SequenceUnwrapper()
    private var highestProcessed: Int64 = -1
    private var baseDelay = Int64.max
    private var ackedBytes = 0
    private var ackedStart: Int64 = -1
    private var ackedEnd: Int64 = -1
    private(set) var bestAckedKbps: Double?

    init(maxKbps: Int) {
        self.maxKbps = Double(max(1, maxKbps))
        rateKbps = min(Self.startKbps, self.maxKbps)
    }

    mutating func begin(now: UInt64) {
        start = now
    }

    /// The step `now` is in; the rate rises with each new one until a step is congested.
    mutating func tick(now: UInt64) {
        guard start > 0 else { return }
        let step = Int((now - start) / Self.stepMicros)
        guard step != currentStep else { return }
        currentStep = step
        if !holding { rateKbps = min(maxKbps, rateKbps * Self.rise) }
    }

    private func stepIndex(sentAt micros: UInt64) -> Int {
        guard micros >= start else { return 0 }
        return min(Self.maxSteps - 1, Int((micros - start) / Self.stepMicros))
    }

    /// One feedback packet; `history` holds the send time and size of what we sent.
    mutating func received(_ feedback: RTCPTransportWideCC, history: SendHistory) {
        var congestedNow = false
        feedback.forEachArrival { sequenceNumber, arrival in
            let sequence = unwrapper.unwrap(sequenceNumber)
            // Each packet once: a later feedback may repeat what an earlier one reported.
            guard sequence > highestProcessed, let sent = history.lookup(sequenceNumber) else { return }
            highestProcessed = sequence
            let index = stepIndex(sentAt: sent.sendMicros)
            steps[index].total += 1
            guard let arrival else {
                steps[index].lost += 1
                if steps[index].congested { congestedNow = true }
                return
            }
            let delay = arrival - Int64(sent.sendMicros)
            baseDelay = min(baseDelay, delay)
            steps[index].received += 1
            if delay - baseDelay > Self.queueLimitMicros { steps[index].queued += 1 }
            if steps[index].congested { congestedNow = true }
            addAcked(bytes: sent.size + precallWireOverheadBytes, arrival: arrival)
        }
        if congestedNow && !holding {
            holding = true
            rateKbps = min(rateKbps, max(Self.startKbps, Self.holdShare * (bestAckedKbps ?? rateKbps)))
        }
    }

    private mutating func addAcked(bytes: Int, arrival: Int64) {
        if ackedStart < 0 { ackedStart = arrival }
        ackedBytes += bytes
        ackedEnd = max(ackedEnd, arrival)
        let span = ackedEnd - ackedStart
        guard span >= Self.ackedWindowMicros else { return }
        bestAckedKbps = max(bestAckedKbps ?? 0, Double(ackedBytes) * 8 * 1000 / Double(span))
        ackedBytes = 0
        ackedStart = ackedEnd
    }

    /// Loss over the steps that were not congested; nil before any feedback.
    var lossFraction: Double? {
        var lost = 0, total = 0
        for step in steps where !step.congested {
            lost += step.lost
            total += step.total
        }
        return total > 0 ? Double(lost) / Double(total) : nil
    }

    /// The padding bytes due in one worker tick of `tickMicros`.
    func budget(tickMicros: UInt64) -> Int {
        Int(rateKbps * 1000 / 8 * Double(tickMicros) / 1_000_000)
    }
}
