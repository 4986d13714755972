import SluiceTransport
import SluiceVocabulary
import Testing
@testable import SluiceMedia

/// The router as its consumers see it (`StreamUpstream`): reads answered from the producer
/// while there is one, and a player that waits stays across publishers.
struct RouterTests {
    @Test func aWaitingPlayerSeesPublishersComeAndGo() throws {
        let worker = try MediaTestSupport.worker()
        let router = Router(stream: "s")
        let play = MediaTestSupport.endpoint(.play, video: MediaTestSupport.videoTrack(), handle: "p")
        let consumer = Consumer(parameters: play, constraints: StreamConstraints(),
                                transport: try MediaTestSupport.transport(worker, play), statsBoard: nil)
        router.add(consumer)
        #expect(consumer.upstream === router)
        #expect(router.measuredLayers.isEmpty && !router.isSimulcast && !router.isEmpty)

        let publish = MediaTestSupport.endpoint(.publish, video: MediaTestSupport.videoTrack(rids: ["q", "h", "f"], ridID: 4))
        let producer = Producer(parameters: publish, transport: try MediaTestSupport.transport(worker, publish),
                                statsBoard: nil)
        router.attach(producer)
        #expect(producer.router === router)
        #expect(router.isSimulcast)
        #expect(router.measuredLayers.map(\.index) == [0, 1, 2])
        #expect(router.storedPacket(layer: 0, sequence: 1) == nil)

        router.detach(producer)
        #expect(producer.router == nil)
        #expect(router.measuredLayers.isEmpty && router.layerSize(0) == (0, 0) && router.captureMicros(layer: 0, timestamp: 0) == nil)
        #expect(!router.isEmpty)
        router.remove(consumer)
        #expect(router.isEmpty)
        producer.releaseBuffers()
    }

    /// What the producer measured reaches the consumers as the router's snapshot; with no
    /// player asking, there is nothing to send back.
    @Test func layerMeasurementsAreKeptForTheConsumers() {
        let router = Router(stream: "s")
        let layers = [LayerSelector.Layer(index: 0, width: 320, height: 180, bitrateKbps: 150)]
        #expect(router.layersMeasured(layers, now: 1).isEmpty)
        #expect(router.measuredLayers == layers)
    }

    @Test func muteIsPerKind() {
        let router = Router(stream: "s")
        router.setMuted(.video, true)
        #expect(router.isMuted(.video) && !router.isMuted(.audio))
        router.setMuted(.video, false)
        #expect(!router.isMuted(.video))
    }
}
