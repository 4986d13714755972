import SluiceWire

/// Tracks sequence numbers missing from one incoming stream and says which to NACK now
/// (RFC 4585): each missing packet is asked for a few times, spaced, then given up.
struct NackGenerator {
    static let maxMissing = 256
    static let maxTries = 5
    static let retryMicros: UInt64 = 60_000
    static let giveUpMicros: UInt64 = 800_000

    private struct Missing {
        var sequence: Int64
        var since: UInt64
        var lastAsked: UInt64
        var tries: Int
    }

    private var unwrapper = SequenceUnwrapper()
    private var missing: [Missing] = []

    init() {
        missing.reserveCapacity(Self.maxMissing)
    }

    /// Notes an arrival; a jump forward marks the skipped numbers missing.
    @inline(__always)
    mutating func received(_ sequence: UInt16, now: UInt64) {
        let previousHighest = unwrapper.highest
        let extended = unwrapper.unwrap(sequence)
        if previousHighest < 0 { return }
        if extended > previousHighest + 1 {
            let first = max(previousHighest + 1, extended - Int64(Self.maxMissing))
            for s in first..<extended where missing.count < Self.maxMissing {
                missing.append(Missing(sequence: s, since: now, lastAsked: 0, tries: 0))
            }
        } else if extended <= previousHighest, !missing.isEmpty {
            missing.removeAll { $0.sequence == extended }
        }
    }

    /// The numbers to NACK now, oldest first; drops those asked too often or too long ago.
    mutating func due(now: UInt64) -> [UInt16] {
        guard !missing.isEmpty else { return [] }
        missing.removeAll { $0.tries >= Self.maxTries || now - $0.since > Self.giveUpMicros }
        var result: [UInt16] = []
        for i in missing.indices where missing[i].lastAsked == 0 || now - missing[i].lastAsked >= Self.retryMicros {
            missing[i].lastAsked = now
            missing[i].tries += 1
            result.append(UInt16(truncatingIfNeeded: missing[i].sequence))
        }
        return result
    }

    var missingCount: Int { missing.count }
}
