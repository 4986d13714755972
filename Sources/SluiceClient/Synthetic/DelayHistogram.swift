/// One-way delays in fixed buckets (25 µs wide up to 100 ms, then one overflow bucket), so
/// recording costs no allocation and percentiles come out at a known resolution.
public struct DelayHistogram: Sendable {
    public static let bucketMicros: UInt64 = 25
    public static let bucketCount = 4000

    private var buckets: [UInt32]
    private var overflow: UInt64 = 0
    public private(set) var count: UInt64 = 0
    public private(set) var sumMicros: UInt64 = 0
    public private(set) var minMicros: UInt64 = .max
    public private(set) var maxMicros: UInt64 = 0

    public init() {
        buckets = [UInt32](repeating: 0, count: Self.bucketCount)
    }

    public mutating func record(micros: UInt64) {
        count += 1
        sumMicros &+= micros
        minMicros = min(minMicros, micros)
        maxMicros = max(maxMicros, micros)
        let index = micros / Self.bucketMicros
        if index < UInt64(Self.bucketCount) {
            buckets[Int(index)] &+= 1
        } else {
            overflow += 1
        }
    }

    /// Counts per bucket, bucket i holding delays from i to i+1 times `bucketMicros` (for reports).
    public var bucketCounts: [UInt32] { buckets }
    /// Delays past the last bucket.
    public var overflowCount: UInt64 { overflow }

    public var meanMicros: Double { count == 0 ? 0 : Double(sumMicros) / Double(count) }

    /// The upper edge of the bucket holding the `fraction` quantile (0.99 for p99); `maxMicros`
    /// when it falls in the overflow bucket; nil when empty.
    public func percentileMicros(_ fraction: Double) -> UInt64? {
        guard count > 0 else { return nil }
        let rank = UInt64((Double(count) * min(max(fraction, 0), 1)).rounded(.up))
        var seen: UInt64 = 0
        for (index, value) in buckets.enumerated() {
            seen += UInt64(value)
            if seen >= max(rank, 1) { return min(UInt64(index + 1) * Self.bucketMicros, maxMicros) }
        }
        return maxMicros
    }

    public mutating func merge(_ other: DelayHistogram) {
        for i in 0..<Self.bucketCount { buckets[i] &+= other.buckets[i] }
        overflow += other.overflow
        count += other.count
        sumMicros &+= other.sumMicros
        minMicros = min(minMicros, other.minMicros)
        maxMicros = max(maxMicros, other.maxMicros)
    }
}
