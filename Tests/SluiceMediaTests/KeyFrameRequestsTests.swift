import Testing
@testable import SluiceMedia

struct KeyFrameRequestsTests {
    @Test func collectsLayersOrEveryLayer() {
        var requests = KeyFrameRequests()
        #expect(requests.isEmpty)
        requests.add(layer: 2)
        requests.add(layer: 0)
        #expect(!requests.isEmpty)
        #expect(requests.contains(layer: 0) && requests.contains(layer: 2) && !requests.contains(layer: 1))
        requests.add(layer: nil)
        #expect(requests.contains(layer: 1) && requests.contains(layer: 63))
    }

    @Test func outOfRangeLayersAreIgnored() {
        var requests = KeyFrameRequests()
        requests.add(layer: 64)
        requests.add(layer: -1)
        #expect(requests.isEmpty)
        #expect(!requests.contains(layer: 64))
    }
}
