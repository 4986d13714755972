import SluiceClient
import SluiceTestMedia
import Testing
@testable import SluiceLoadTest

struct PercentileTests {
    @Test func nearestRank() {
        let values = [15.0, 20, 35, 40, 50]
        #expect(Percentile.nearestRank(values, 0.05) == 15)
        #expect(Percentile.nearestRank(values, 0.30) == 20)
        #expect(Percentile.nearestRank(values, 0.40) == 20)
        #expect(Percentile.nearestRank(values, 0.50) == 35)
        #expect(Percentile.nearestRank(values, 1.0) == 50)
        #expect(Percentile.nearestRank(values, 0) == 15)
        #expect(Percentile.nearestRank([3, 1, 2], 0.99) == 3)
        #expect(Percentile.nearestRank([Double](), 0.5) == nil)
        #expect(Percentile.nearestRank([7], .nan) == 7)
        #expect(Percentile.nearestRank([1, 2], 7) == 2)
        let hundred = (1...100).map(Double.init)
        #expect(Percentile.nearestRank(hundred, 0.99) == 99)
        #expect(Percentile.nearestRank(hundred, 0.995) == 100)
    }

    @Test func delayPercentilesAreBucketUpperEdgesCappedAtTheMaximum() {
        var histogram = DelayHistogram()
        for micros in [10, 30, 30, 60, 990] as [UInt64] { histogram.record(micros: micros) }
        var d = DelayDistribution()
        d.add(histogram)
        #expect(d.count == 5 && d.maxMicros == 990)
        #expect(d.percentileMicros(0.2) == 25)      // 10 µs lies in [0, 25)
        #expect(d.percentileMicros(0.6) == 50)      // rank 3: 30 µs, bucket [25, 50)
        #expect(d.percentileMicros(0.8) == 75)
        #expect(d.percentileMicros(1.0) == 990)     // the bucket edge 1000 is capped at the max
        #expect(DelayDistribution().percentileMicros(0.99) == nil)
        #expect(abs(d.meanMicros - 224) < 1e-9)
    }

    @Test func overflowCountsAtTheMaximum() {
        var histogram = DelayHistogram()
        histogram.record(micros: 100)
        histogram.record(micros: 250_000)
        var d = DelayDistribution()
        d.add(histogram)
        #expect(d.percentileMicros(0.5) == 125)
        #expect(d.percentileMicros(0.99) == 250_000)
    }

    @Test func anIntervalIsTheDifferenceOfTwoSnapshots() {
        var histogram = DelayHistogram()
        for _ in 0..<99 { histogram.record(micros: 100) }
        var first = DelayDistribution()
        first.add(histogram)
        for _ in 0..<10 { histogram.record(micros: 5000) }
        var second = DelayDistribution()
        second.add(histogram)
        let interval = second.subtracting(first)
        #expect(interval.count == 10)
        #expect(interval.percentileMicros(0.5) == 5000)
        #expect(second.percentileMicros(0.5) == 125)
    }

    @Test func binsTakeWholeBucketsAndKeepEveryCount() {
        let d = DelayDistribution(counts: [1, 2, 3, 4, 5, 6, 7], overflow: 2)
        let bins = d.bins(3, upToMicros: 150)
        #expect(bins.map(\.count) == [3, 7, 20])    // 2 buckets per bin; the last takes the rest and the overflow
        #expect(bins.map(\.lowerMicros) == [0, 50, 100])
        #expect(bins.reduce(0) { $0 + $1.count } == d.count)
        #expect(DelayDistribution().bins(0, upToMicros: 0).count == 1)
    }
}

struct CoarseDelayTests {
    @Test func delaysPast100MillisecondsKeepTheirSize() {
        var histogram = DelayHistogram()
        for _ in 0..<98 { histogram.record(micros: 500) }
        histogram.record(micros: 1_234_000)
        histogram.record(micros: 2_500_000)
        var d = DelayDistribution()
        d.add(histogram)
        #expect(d.percentileMicros(0.5) == 525)     // the 25 µs bucket [500, 525)
        #expect(d.percentileMicros(0.99) == 1_240_000)   // the 10 ms bucket [1.23 s, 1.24 s)
        #expect(d.percentileMicros(1) == 2_500_000)
        let bins = d.bins(10, upToMicros: 3_000_000)
        #expect(bins.first?.count == 98 && bins.reduce(0) { $0 + $1.count } == 100)
        #expect(bins.allSatisfy { $0.lowerMicros % DelayHistogram.coarseBucketMicros == 0 })
    }
}
