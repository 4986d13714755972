/// What a player can receive, from three signals: its own estimate (REMB), the server's
/// probes that it took without loss, and heavy loss in its receiver reports.
///
/// A receiver-side estimate climbs slowly and never far above what it receives, so after a
/// dip a player would take half a minute to get its top layer back. A probe the player took
/// cleanly (no loss, its REMB not falling) is evidence of bandwidth the REMB has not caught
/// up with; any sign of congestion withdraws it.
struct BandwidthEstimate {
    private(set) var remb: Double?
    private(set) var probed: Double?
    private var rembWhenProbed: Double = 0
    private var lossFraction: Double = 0
    private var sentKbps: Double = 0

    /// A probe proves a rate for this long unless congestion shows first.
    static let probeValidityMicros: UInt64 = 15_000_000
    private var probedAt: UInt64 = 0

    var kbps: Double? {
        var value = max(remb ?? 0, probed ?? 0)
        if value == 0 { return nil }
        // Heavy loss: what arrives is what fits.
        if lossFraction > 0.1, sentKbps > 0 { value = min(value, sentKbps * (1 - lossFraction)) }
        return value
    }

    mutating func received(remb kbps: Double, now: UInt64) {
        remb = kbps
        if let _ = probed, kbps < rembWhenProbed * 0.85 || now - probedAt > Self.probeValidityMicros {
            probed = nil
        }
    }

    mutating func received(lossFraction fraction: Double, sentKbps: Double) {
        lossFraction = fraction
        self.sentKbps = sentKbps
        if fraction > 0.02 { probed = nil }
    }

    /// A probe of `totalKbps` ended; `clean` when the player showed no loss and no falling
    /// estimate while it lasted.
    mutating func probeEnded(totalKbps: Double, clean: Bool, now: UInt64) {
        guard clean else { return }
        probed = max(probed ?? 0, totalKbps)
        probedAt = now
        rembWhenProbed = remb ?? 0
    }
}
