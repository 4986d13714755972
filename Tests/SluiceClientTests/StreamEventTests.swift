import SluiceJSON
import Testing
@testable import SluiceClient

/// `layersWanted` as the Swift SDK shows it: the rids, and nil for any other event.
struct StreamEventTests {
    @Test func layersWantedGivesItsRids() {
        let event = StreamEvent(handle: "pub1", stream: "s", type: .layersWanted, by: "server",
                                data: .object(["rids": .array([.string("q"), .string("h")]),
                                               "layers": .array([.int(0), .int(1)])]))
        #expect(event.wantedRids == ["q", "h"])
        #expect(StreamEvent(handle: "pub1", stream: "s", type: .resize, data: event.data).wantedRids == nil)
    }
}
