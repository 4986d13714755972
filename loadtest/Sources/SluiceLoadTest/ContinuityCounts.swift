import SluiceClient
import SluiceTestMedia

/// A player's continuity figures, summed over its kinds: what `--assert-no-loss` judges.
public struct ContinuityCounts: Sendable, Equatable, Codable {
    public var packets: UInt64 = 0
    /// Sequence numbers never received between the first and the newest seen.
    public var lost: Int64 = 0
    public var duplicates: UInt64 = 0
    /// Forward jumps of more than one sequence number (each one is a discontinuity).
    public var gaps: UInt64 = 0
    public var reordered: UInt64 = 0
    /// The SSRC changed under the player.
    public var ssrcChanges: UInt64 = 0

    public init() {}

    public init(video: ReceivedStreamStats, audio: ReceivedStreamStats, packets: UInt64) {
        self.packets = packets
        for s in [video, audio] {
            lost += s.lost
            duplicates += s.duplicates
            gaps += s.gaps
            reordered += s.reordered
            ssrcChanges += s.ssrcChanges
        }
    }

    public static func + (a: ContinuityCounts, b: ContinuityCounts) -> ContinuityCounts {
        var sum = a
        sum.packets += b.packets
        sum.lost += b.lost
        sum.duplicates += b.duplicates
        sum.gaps += b.gaps
        sum.reordered += b.reordered
        sum.ssrcChanges += b.ssrcChanges
        return sum
    }

    /// Lost packets over those that should have arrived.
    public var lossFraction: Double {
        let expected = Double(packets) - Double(duplicates) + Double(max(0, lost))
        return expected > 0 ? Double(max(0, lost)) / expected : 0
    }

    /// What breaks "no loss": loss, duplicates, sequence discontinuities, reordering, an SSRC change.
    public var problems: [String] {
        var found: [String] = []
        if lost > 0 { found.append("\(lost) lost") }
        if duplicates > 0 { found.append("\(duplicates) duplicate\(duplicates == 1 ? "" : "s")") }
        if gaps > 0 { found.append("\(gaps) sequence gap\(gaps == 1 ? "" : "s")") }
        if reordered > 0 { found.append("\(reordered) out of order") }
        if ssrcChanges > 0 { found.append("\(ssrcChanges) SSRC change\(ssrcChanges == 1 ? "" : "s")") }
        return found
    }
}
