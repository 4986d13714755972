import SluiceRTP

/// What a player can receive. Two sources, whichever the player speaks:
///
/// - **transport-cc** (Chromium, libwebrtc): the server estimates itself from when its
///   packets arrived (`SendSideEstimator`). Once feedback flows this is the only source.
/// - **REMB** (aiortc, older clients): the player's own estimate, raised by the server's
///   probes that it took without loss, and capped under heavy loss in its receiver reports.
///   A receiver-side estimate climbs slowly and never far above what it receives, so after a
///   dip a player would take half a minute to get its top layer back; a probe the player took
///   cleanly is evidence the REMB has not caught up with, and congestion withdraws it.
struct BandwidthEstimate {
    private(set) var remb: Double?
    private(set) var probed: Double?
    private var rembWhenProbed: Double = 0
    private var lossFraction: Double = 0
    private var sentKbps: Double = 0
    /// The REMB a fall is measured against, and when a fall last showed congestion.
    private var rembReference: Double = 0
    private var rembReferenceAt: UInt64 = 0
    private var rembFellAt: UInt64 = 0

    private(set) var sendSide = SendSideEstimator()

    /// A probe proves a rate for this long unless congestion shows first (REMB).
    static let probeValidityMicros: UInt64 = 15_000_000
    /// A REMB below this share of its recent peak means the player saw congestion.
    static let rembFall = 0.7
    /// How long a REMB fall counts as congestion.
    static let rembCongestionMicros: UInt64 = 10_000_000
    private var probedAt: UInt64 = 0

    /// True once the player sends transport-cc feedback.
    var usesTransportFeedback: Bool { sendSide.feedbackReceived > 0 }

    var kbps: Double? {
        if usesTransportFeedback { return sendSide.kbps }
        var value = max(remb ?? 0, probed ?? 0)
        if value == 0 { return nil }
        // Heavy loss: what arrives is what fits.
        if lossFraction > 0.1, sentKbps > 0 { value = min(value, sentKbps * (1 - lossFraction)) }
        return value
    }

    /// The path showed congestion lately: loss, queueing (transport-cc) or a falling REMB.
    /// A player that asked for a named quality is held below it only then.
    func congested(now: UInt64) -> Bool {
        if lossFraction > 0.02 { return true }
        if usesTransportFeedback {
            return sendSide.congested(since: now > 2_000_000 ? now - 2_000_000 : 0)
        }
        return rembFellAt != 0 && (now < rembFellAt || now - rembFellAt < Self.rembCongestionMicros)
    }

    mutating func received(remb kbps: Double, now: UInt64) {
        remb = kbps
        if kbps < rembReference * Self.rembFall { rembFellAt = now }
        if kbps >= rembReference || now > rembReferenceAt + 3_000_000 {
            rembReference = kbps
            rembReferenceAt = now
        }
        if let _ = probed, kbps < rembWhenProbed * 0.85 || now - probedAt > Self.probeValidityMicros {
            probed = nil
        }
    }

    mutating func received(lossFraction fraction: Double, sentKbps: Double) {
        lossFraction = fraction
        self.sentKbps = sentKbps
        if fraction > 0.02 { probed = nil }
    }

    mutating func received(_ feedback: RTCPTransportWideCC, history: SendHistory, sentKbps: Double, now: UInt64) {
        sendSide.received(feedback, history: history, sentKbps: sentKbps, now: now)
    }

    /// A probe of `totalKbps` ended; `clean` when the player showed no loss, no queueing and
    /// no falling estimate while it lasted.
    mutating func probeEnded(totalKbps: Double, clean: Bool, now: UInt64) {
        guard clean else { return }
        if usesTransportFeedback {
            sendSide.probeSucceeded(totalKbps: totalKbps)
            return
        }
        probed = max(probed ?? 0, totalKbps)
        probedAt = now
        rembWhenProbed = remb ?? 0
    }
}
