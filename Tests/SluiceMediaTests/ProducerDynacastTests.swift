import SluiceTransport
import SluiceVocabulary
import Testing
@testable import SluiceMedia

/// A simulcast producer with dynacast on, behind a router: what it reports as the stream's
/// takers come, switch and go, here and on another worker.
struct ProducerDynacastTests {
    private let grace = LayerPauses.graceMicros

    @Test func thePublisherHearsTheLayersWithATaker() throws {
        let worker = try MediaTestSupport.worker()
        let publish = MediaTestSupport.endpoint(.publish, video: MediaTestSupport.videoTrack(rids: ["q", "h", "f"], ridID: 10))
        let producer = Producer(parameters: publish, transport: try MediaTestSupport.transport(worker, publish),
                                statsBoard: nil)
        producer.state.layerPauses = LayerPauses(layerCount: 3, now: 0)
        var wanted: [[String]] = []
        producer.report = { event in
            if case .layersWanted(_, let rids, let layers) = event {
                #expect(rids.count == layers.count)
                wanted.append(rids)
            }
        }
        let router = Router(stream: "s")
        router.attach(producer)
        _ = router.layersMeasured(threeLayers, now: 1)

        // One low player: after the grace time only its layer is wanted.
        let play = MediaTestSupport.endpoint(.play, video: MediaTestSupport.videoTrack(), handle: "low")
        let low = Consumer(parameters: play, constraints: StreamConstraints(video: VideoConstraints(quality: .low)),
                           transport: try MediaTestSupport.transport(worker, play), statsBoard: nil)
        router.add(low)
        _ = router.layersMeasured(threeLayers, now: 2)
        producer.updateLayerPauses(now: grace - 1, due: true)
        #expect(wanted.isEmpty)
        producer.updateLayerPauses(now: grace, due: true)
        #expect(wanted == [["q"]])

        // Players on another worker need the top layer: it is wanted again at once, with no
        // second's check due.
        router.setRemoteWanted(0b100, worker: 1)
        producer.updateLayerPauses(now: grace + 10, due: false)
        #expect(wanted.last == ["q", "f"])
        // They leave; the top layer goes after its grace time, not before.
        router.setRemoteWanted(0, worker: 1)
        producer.updateLayerPauses(now: grace + 20, due: false)
        #expect(wanted.count == 2)
        producer.updateLayerPauses(now: 2 * grace + 10, due: true)
        #expect(wanted.last == ["q"])

        // The low player switches to the middle layer (an update): it is wanted at once.
        low.update(StreamConstraints(video: VideoConstraints(quality: .medium)))
        producer.updateLayerPauses(now: 2 * grace + 20, due: false)
        #expect(wanted.last == ["q", "h"])
        router.remove(low)
        producer.releaseBuffers()
    }
}
