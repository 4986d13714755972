/// One-way delays in fixed buckets, so recording costs no allocation and percentiles come out
/// at a known resolution: 25 µs wide up to 100 ms, then 10 ms wide up to 10 s, then one
/// overflow bucket. (A stall of a second under load is a figure worth reading too.)
public struct DelayHistogram: Sendable {
    public static let bucketMicros: UInt64 = 25
    /// Fine buckets, each `bucketMicros` wide, from 0 to 100 ms.
    public static let bucketCount = 4000
    public static let coarseBucketMicros: UInt64 = 10_000
    /// Coarse buckets after the fine ones, from 100 ms to 10 s.
    public static let coarseBucketCount = 990
    /// Where the coarse buckets start: 100 ms.
    public static let fineLimitMicros = UInt64(bucketCount) * bucketMicros

    private var buckets: [UInt32]
    private var overflow: UInt64 = 0
    public private(set) var count: UInt64 = 0
    public private(set) var sumMicros: UInt64 = 0
    public private(set) var minMicros: UInt64 = .max
    public private(set) var maxMicros: UInt64 = 0

    public init() {
        buckets = [UInt32](repeating: 0, count: Self.bucketCount + Self.coarseBucketCount)
    }

    /// The bucket a delay falls in; `bucketCount + coarseBucketCount` is the overflow.
    @inline(__always)
    public static func bucketIndex(micros: UInt64) -> Int {
        if micros < fineLimitMicros { return Int(micros / bucketMicros) }
        let coarse = (micros - fineLimitMicros) / coarseBucketMicros
        return coarse < UInt64(coarseBucketCount) ? bucketCount + Int(coarse) : bucketCount + coarseBucketCount
    }

    /// Where bucket `index` starts and ends (µs, end excluded).
    public static func bucketRange(_ index: Int) -> (lower: UInt64, upper: UInt64) {
        if index < bucketCount { return (UInt64(index) * bucketMicros, UInt64(index + 1) * bucketMicros) }
        let coarse = UInt64(index - bucketCount)
        return (fineLimitMicros + coarse * coarseBucketMicros, fineLimitMicros + (coarse + 1) * coarseBucketMicros)
    }

    public mutating func record(micros: UInt64) {
        count += 1
        sumMicros &+= micros
        minMicros = min(minMicros, micros)
        maxMicros = max(maxMicros, micros)
        let index = Self.bucketIndex(micros: micros)
        if index < buckets.count {
            buckets[index] &+= 1
        } else {
            overflow += 1
        }
    }

    /// Counts per bucket, fine then coarse (see `bucketRange`), for reports.
    public var bucketCounts: [UInt32] { buckets }
    /// Delays past the last bucket.
    public var overflowCount: UInt64 { overflow }

    public var meanMicros: Double { count == 0 ? 0 : Double(sumMicros) / Double(count) }

    /// The upper edge of the bucket holding the `fraction` quantile (0.99 for p99), at most
    /// `maxMicros`; `maxMicros` when it falls in the overflow bucket; nil when empty.
    public func percentileMicros(_ fraction: Double) -> UInt64? {
        guard count > 0 else { return nil }
        let rank = UInt64((Double(count) * min(max(fraction, 0), 1)).rounded(.up))
        var seen: UInt64 = 0
        for (index, value) in buckets.enumerated() where value != 0 {
            seen += UInt64(value)
            if seen >= max(rank, 1) { return min(Self.bucketRange(index).upper, maxMicros) }
        }
        return maxMicros
    }

    public mutating func merge(_ other: DelayHistogram) {
        for i in buckets.indices { buckets[i] &+= other.buckets[i] }
        overflow += other.overflow
        count += other.count
        sumMicros &+= other.sumMicros
        minMicros = min(minMicros, other.minMicros)
        maxMicros = max(maxMicros, other.maxMicros)
    }
}
