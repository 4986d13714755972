import Testing
@testable import SluiceMedia

/// `recording.layer`: a rank by measured size, whatever order the publisher offered its layers in.
@Suite struct RecordedLayerTests {
    let layers = [(index: 0, area: 1280 * 720), (index: 1, area: 320 * 180), (index: 2, area: 640 * 360)]

    @Test func ranksBySize() {
        #expect(RecordedLayer.top.pick(layers) == 0)
        #expect(RecordedLayer.middle.pick(layers) == 2)
        #expect(RecordedLayer.low.pick(layers) == 1)
    }

    @Test func evenCountsAndOneLayer() {
        let two = [(index: 0, area: 100), (index: 1, area: 400)]
        #expect(RecordedLayer.middle.pick(two) == 0)  // the lower middle, as quality: "medium"
        #expect(RecordedLayer.top.pick(two) == 1)
        for rank in RecordedLayer.allCases {
            #expect(rank.pick([(index: 3, area: 10)]) == 3)
            #expect(rank.pick([]) == nil)
        }
    }
}
