import Testing
@testable import SluiceTransport

struct ForwardDelayHistogramTests {
    @Test func countsByBucketAndShowsOnlyWhatWasPublished() {
        let histogram = ForwardDelayHistogram()
        histogram.record(micros: 0, datagrams: 2)        // <= 25
        histogram.record(micros: 25, datagrams: 1)       // <= 25, bounds are inclusive
        histogram.record(micros: 26, datagrams: 4)       // <= 50
        histogram.record(micros: 999, datagrams: 1)      // <= 1000
        histogram.record(micros: 10_001, datagrams: 3)   // over the largest bound
        #expect(histogram.read().allSatisfy { $0 == 0 })
        histogram.publish()
        #expect(histogram.read() == [3, 4, 0, 0, 0, 1, 0, 0, 0, 3])
        histogram.record(micros: 60, datagrams: 1)
        #expect(histogram.read()[2] == 0)
        histogram.publish()
        #expect(histogram.read()[2] == 1)
    }
}
