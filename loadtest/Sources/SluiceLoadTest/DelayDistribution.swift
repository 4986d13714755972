import SluiceClient
import SluiceTestMedia

/// One-way delays of many players merged, in the buckets of the SDK's `DelayHistogram`
/// (25 µs up to 100 ms, 10 ms up to 10 s, then overflow). Differences of two snapshots give an interval's
/// distribution, so the progress line shows the last second and not the whole run.
public struct DelayDistribution: Sendable, Equatable {
    public static let bucketMicros = DelayHistogram.bucketMicros

    public private(set) var counts: [UInt64]
    public private(set) var overflow: UInt64 = 0
    public private(set) var sumMicros: UInt64 = 0
    /// The largest delay merged in (of the whole run, also for differences).
    public private(set) var maxMicros: UInt64 = 0

    public init() {
        counts = [UInt64](repeating: 0, count: DelayHistogram.bucketCount + DelayHistogram.coarseBucketCount)
    }

    /// Counts per bucket (see `DelayHistogram.bucketRange`), for tests; each delay counts at
    /// its bucket's middle.
    public init(counts: [UInt64], overflow: UInt64 = 0, maxMicros: UInt64? = nil) {
        self.init()
        for (i, c) in counts.prefix(self.counts.count).enumerated() {
            self.counts[i] = c
            let range = DelayHistogram.bucketRange(i)
            sumMicros &+= c * ((range.lower + range.upper) / 2)
        }
        self.overflow = overflow
        let top = counts.prefix(self.counts.count).lastIndex { $0 > 0 }.map { DelayHistogram.bucketRange($0).upper } ?? 0
        self.maxMicros = maxMicros ?? top
    }

    public var count: UInt64 { counts.reduce(overflow, +) }

    public var meanMicros: Double {
        let n = count
        return n == 0 ? 0 : Double(sumMicros) / Double(n)
    }

    public mutating func add(_ histogram: DelayHistogram) {
        guard histogram.count > 0 else { return }
        let buckets = histogram.bucketCounts
        for i in 0..<min(buckets.count, counts.count) where buckets[i] != 0 { counts[i] &+= UInt64(buckets[i]) }
        overflow &+= histogram.overflowCount
        sumMicros &+= histogram.sumMicros
        maxMicros = max(maxMicros, histogram.maxMicros)
    }

    public mutating func add(_ other: DelayDistribution) {
        for i in counts.indices { counts[i] &+= other.counts[i] }
        overflow &+= other.overflow
        sumMicros &+= other.sumMicros
        maxMicros = max(maxMicros, other.maxMicros)
    }

    /// What was added since `earlier` (a snapshot of the same growing distribution).
    public func subtracting(_ earlier: DelayDistribution) -> DelayDistribution {
        var result = self
        for i in counts.indices { result.counts[i] = counts[i] >= earlier.counts[i] ? counts[i] - earlier.counts[i] : 0 }
        result.overflow = overflow >= earlier.overflow ? overflow - earlier.overflow : 0
        result.sumMicros = sumMicros >= earlier.sumMicros ? sumMicros - earlier.sumMicros : 0
        return result
    }

    /// The upper edge of the bucket that holds the `fraction` quantile (nearest rank), capped
    /// at the largest delay seen; the largest delay when it falls in the overflow (past 10 s);
    /// nil when empty.
    public func percentileMicros(_ fraction: Double) -> UInt64? {
        let total = count
        guard total > 0 else { return nil }
        let f = fraction.isNaN ? 0 : min(max(fraction, 0), 1)
        let rank = max(1, UInt64((f * Double(total)).rounded(.up)))
        var seen: UInt64 = 0
        for (i, c) in counts.enumerated() where c > 0 {
            seen += c
            if seen >= rank {
                let edge = DelayHistogram.bucketRange(i).upper
                return maxMicros > 0 ? min(edge, maxMicros) : edge
            }
        }
        return maxMicros
    }

    /// `binCount` equal bins from 0 to `upToMicros` (the last bin also takes everything above),
    /// for the report's histogram. A bin is a whole number of buckets wide (25 µs, or 10 ms
    /// past 100 ms), so every bucket falls in exactly one bin.
    public func bins(_ binCount: Int, upToMicros: UInt64) -> [DelayBin] {
        let n = max(1, binCount)
        let unit = upToMicros > DelayHistogram.fineLimitMicros ? DelayHistogram.coarseBucketMicros : Self.bucketMicros
        let width = max(1, (upToMicros / unit + UInt64(n) - 1) / UInt64(n)) * unit
        var bins = (0..<n).map { DelayBin(lowerMicros: UInt64($0) * width, upperMicros: UInt64($0 + 1) * width, count: 0) }
        for (i, c) in counts.enumerated() where c > 0 {
            let lower = DelayHistogram.bucketRange(i).lower
            bins[Int(min(UInt64(n - 1), lower / width))].count += c
        }
        bins[n - 1].count += overflow
        return bins
    }
}

public struct DelayBin: Sendable, Equatable, Codable {
    public var lowerMicros: UInt64
    public var upperMicros: UInt64
    public var count: UInt64
}
