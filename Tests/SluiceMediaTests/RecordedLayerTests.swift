import Testing
@testable import SluiceMedia

/// `recording.layer`: a rank by measured size, whatever order the publisher offered its layers in.
@Suite struct RecordedLayerTests {
    let layers = [(index: 0, area: 1280 * 720, kbps: 1500.0), (index: 1, area: 320 * 180, kbps: 150.0),
                  (index: 2, area: 640 * 360, kbps: 500.0)]

    @Test func ranksBySize() {
        #expect(RecordedLayer.top.pick(layers) == 0)
        #expect(RecordedLayer.middle.pick(layers) == 2)
        #expect(RecordedLayer.low.pick(layers) == 1)
    }

    @Test func theHigherBitrateWinsAtOneSize() {
        // Chromium's top layer while it ramps: the same size as the middle one, more bits.
        let ramping = [(index: 0, area: 320 * 180, kbps: 150.0), (index: 1, area: 640 * 360, kbps: 500.0),
                       (index: 2, area: 640 * 360, kbps: 900.0)]
        #expect(RecordedLayer.top.pick(ramping) == 2)
        #expect(RecordedLayer.middle.pick(ramping) == 1)
        #expect(RecordedLayer.low.pick(ramping) == 0)
    }

    @Test func evenCountsAndOneLayer() {
        let two = [(index: 0, area: 100, kbps: 1.0), (index: 1, area: 400, kbps: 2.0)]
        #expect(RecordedLayer.middle.pick(two) == 0)  // the lower middle, as quality: "medium"
        #expect(RecordedLayer.top.pick(two) == 1)
        for rank in RecordedLayer.allCases {
            #expect(rank.pick([(index: 3, area: 10, kbps: 1.0)]) == 3)
            #expect(rank.pick([]) == nil)
        }
    }
}
