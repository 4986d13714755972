/// A MOS-style score (1.0 to 4.5) from loss, jitter and round-trip time, by a simplified
/// ITU-T G.107 E-model: the effective latency and the loss lower the R factor, which maps to
/// a mean opinion score. Levels follow docs/protocol.md (`connectionQuality`).
public struct ConnectionQuality: Equatable, Sendable {
    public enum Level: String, Sendable, Comparable {
        case poor, fair, average, good, excellent

        public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }

        var rank: Int {
            switch self {
            case .poor: return 0
            case .fair: return 1
            case .average: return 2
            case .good: return 3
            case .excellent: return 4
            }
        }
    }

    public var score: Double
    public var level: Level

    /// The score of a path with no loss, jitter or delay measured (yet).
    public static let unimpaired = ConnectionQuality(lossFraction: 0, jitterMs: 0, rttMs: 0)

    /// `lossFraction` is 0...1.
    public init(lossFraction: Double, jitterMs: Double, rttMs: Double) {
        let latency = rttMs / 2 + jitterMs * 2 + 10
        var r = 93.2
        r -= latency < 160 ? latency / 40 : (latency - 120) / 10
        r -= 2.5 * min(100, max(0, lossFraction * 100))
        r = min(100, max(0, r))
        let mos = 1 + 0.035 * r + 0.000007 * r * (r - 60) * (100 - r)
        score = (min(4.5, max(1.0, mos)) * 100).rounded() / 100
        switch score {
        case 4.2...: level = .excellent
        case 3.6..<4.2: level = .good
        case 3.0..<3.6: level = .average
        case 2.0..<3.0: level = .fair
        default: level = .poor
        }
    }
}
