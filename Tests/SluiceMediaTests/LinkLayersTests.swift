import SluiceRTP
import SluiceTransport
import SluiceVocabulary
import SluiceWire
import Testing
@testable import SluiceMedia

/// "Layers on a link" (docs/cluster.md): the origin forwards the layers its edge last asked
/// for (audio always, every layer until asked), and the edge asks for what its players need
/// (each one's current and target layer, on every worker), anew on a change and again every
/// 250 ms.
struct LinkLayersTests {
    // MARK: Origin: the filter

    @Test func theOriginForwardsEveryLayerUntilTheEdgeAsks() {
        let filter = LinkLayerFilter()
        #expect(filter.serial == nil)
        for layer in 0..<3 { #expect(filter.carries(kind: .video, layer: layer)) }
        #expect(filter.carries(kind: .audio, layer: 0))
    }

    @Test func theOriginForwardsOnlyTheWantedLayersAndAudio() {
        var filter = LinkLayerFilter()
        // The first request narrows "every layer": nothing new to ask a key frame for.
        #expect(filter.apply(serial: 1, mask: 0b001) == 0)
        #expect(filter.carries(kind: .video, layer: 0))
        #expect(!filter.carries(kind: .video, layer: 1) && !filter.carries(kind: .video, layer: 2))
        #expect(filter.carries(kind: .audio, layer: 0))
        #expect(!filter.carries(kind: .video, layer: 40) && !filter.carries(kind: .video, layer: -1))
        // A switch: layer 2 is new (it needs a key frame), layer 0 stays while the player is on it.
        #expect(filter.apply(serial: 2, mask: 0b101) == 0b100)
        #expect(filter.carries(kind: .video, layer: 2))
        // The resend of the same request changes nothing.
        #expect(filter.apply(serial: 2, mask: 0b101) == 0)
        // The switch done: layer 0 stops.
        #expect(filter.apply(serial: 3, mask: 0b100) == 0)
        #expect(!filter.carries(kind: .video, layer: 0))
        // No video at all: audio goes on.
        #expect(filter.apply(serial: 4, mask: 0) == 0)
        #expect(filter.carries(kind: .audio, layer: 0) && !filter.carries(kind: .video, layer: 2))
    }

    @Test func anOlderRequestIsIgnoredAndSerialsWrap() {
        var filter = LinkLayerFilter()
        #expect(filter.apply(serial: 5, mask: 0b010) == 0)
        // Reordered: an older request must not bring back what the newer one dropped.
        #expect(filter.apply(serial: 4, mask: 0b111) == nil)
        #expect(filter.mask == 0b010 && filter.serial == 5)
        // Serials wrap: after 2^32 - 1 comes 0.
        var wrapping = LinkLayerFilter()
        #expect(wrapping.apply(serial: .max, mask: 0b001) == 0)
        #expect(wrapping.apply(serial: 0, mask: 0b011) == 0b010)
        #expect(wrapping.apply(serial: .max, mask: 0b111) == nil)
        #expect(wrapping.serial == 0 && wrapping.mask == 0b011)
    }

    // MARK: Edge: the request

    @Test func theEdgeSendsAChangeAtOnceAndRepeatsIt() {
        var request = LinkLayerRequest()
        #expect(request.resendDue(now: 0))
        let first = request.due(mask: 0b001, now: 1_000)
        #expect(first?.serial == 1 && first?.mask == 0b001)
        #expect(request.due(mask: 0b001, now: 2_000) == nil)
        #expect(!request.resendDue(now: 2_000))
        // Repeated after 250 ms, under the same serial (a lost one is repaired).
        let again = request.due(mask: 0b001, now: 1_000 + LinkLayerRequest.resendMicros)
        #expect(again?.serial == 1 && again?.mask == 0b001)
        // A change goes at once, with a new serial.
        let changed = request.due(mask: 0b101, now: 1_000 + LinkLayerRequest.resendMicros + 1)
        #expect(changed?.serial == 2 && changed?.mask == 0b101)
        #expect(request.sent == 0b101)
    }

    @Test func aPlayerNeedsItsCurrentAndTargetLayer() {
        #expect(LinkLayerRequest.layers(current: nil, target: 0, videoEnabled: true) == 0b001)
        #expect(LinkLayerRequest.layers(current: 0, target: 2, videoEnabled: true) == 0b101)
        #expect(LinkLayerRequest.layers(current: 2, target: 2, videoEnabled: true) == 0b100)
        // No layer chosen yet: it starts on any layer's key frame.
        #expect(LinkLayerRequest.layers(current: nil, target: Int.max, videoEnabled: true) == .max)
        #expect(LinkLayerRequest.layers(current: 1, target: 2, videoEnabled: false) == 0)
    }

    // MARK: Edge: the players' need, through the router

    private static let measured = [
        LayerSelector.Layer(index: 0, width: 320, height: 180, fps: 30, bitrateKbps: 150),
        LayerSelector.Layer(index: 1, width: 640, height: 360, fps: 30, bitrateKbps: 500),
        LayerSelector.Layer(index: 2, width: 1280, height: 720, fps: 30, bitrateKbps: 1500),
    ]

    private static func player(_ worker: MediaWorker, _ quality: VideoConstraints.Quality, handle: String) throws -> Consumer {
        let play = MediaTestSupport.endpoint(.play, video: MediaTestSupport.videoTrack(), handle: handle)
        return Consumer(parameters: play, constraints: StreamConstraints(video: VideoConstraints(quality: quality)),
                        transport: try MediaTestSupport.transport(worker, play), statsBoard: nil)
    }

    @Test func theRouterUnitesEveryPlayersNeedOnEveryWorker() throws {
        let worker = try MediaTestSupport.worker()
        let router = Router(stream: "s")
        _ = router.layersMeasured(Self.measured, now: 1)
        let low = try Self.player(worker, .low, handle: "low")
        router.add(low)
        #expect(router.takeWantedLayersChanged())
        #expect(!router.takeWantedLayersChanged())
        _ = router.layersMeasured(Self.measured, now: 2)
        #expect(router.wantedVideoLayers() == 0b001)

        // A second player asks for the top layer.
        let high = try Self.player(worker, .high, handle: "high")
        router.add(high)
        _ = router.layersMeasured(Self.measured, now: 3)
        #expect(router.takeWantedLayersChanged())
        #expect(router.wantedVideoLayers() == 0b101)

        // Players on another worker need the middle one (as that worker's ingress tells).
        router.setRemoteWanted(0b010, worker: 1)
        #expect(router.takeWantedLayersChanged())
        #expect(router.wantedVideoLayers() == 0b111)
        router.setRemoteWanted(0b010, worker: 1)
        #expect(!router.takeWantedLayersChanged())
        router.removeTarget(RelayTarget(worker: 1, key: RelayKey(slot: 0, generation: 1)))
        #expect(router.takeWantedLayersChanged())
        #expect(router.wantedVideoLayers() == 0b101)

        // The low player switches up (an update): its target changes and the router is told.
        low.update(StreamConstraints(video: VideoConstraints(quality: .high)))
        #expect(router.takeWantedLayersChanged())
        #expect(router.wantedVideoLayers() == 0b100)
        // Its video off: it needs nothing; the other still needs the top layer.
        high.update(StreamConstraints(video: nil))
        #expect(router.takeWantedLayersChanged())
        #expect(router.wantedVideoLayers() == 0b100)
        router.remove(low)
        #expect(router.takeWantedLayersChanged())
        #expect(router.wantedVideoLayers() == 0)
    }

    // MARK: Edge: the layers it does not carry, as the origin measures them

    @Test func aLinkProducerShowsTheOriginsLayersItDoesNotCarry() throws {
        let worker = try MediaTestSupport.worker()
        var video = MediaTestSupport.videoTrack()
        video.simulcast = [SimulcastLayer(ssrc: 11), SimulcastLayer(ssrc: 12), SimulcastLayer(ssrc: 13)]
        let endpoint = MediaTestSupport.endpoint(.publish, video: video, handle: "link-x")
        let producer = Producer(parameters: endpoint, transport: try MediaTestSupport.transport(worker, endpoint),
                                statsBoard: nil)
        defer { producer.releaseBuffers() }
        let now = MonotonicClock.nowMicros()
        producer.linkWatch = LinkSourceWatch(now: now)
        let state = RTCPLinkState(senderSSRC: 1, serial: 0, mute: [], layers: [
            .init(width: 320, height: 180, fpsCenti: 3000, active: true, bitrateKbps: 150),
            .init(width: 640, height: 360, fpsCenti: 2950, active: true, bitrateKbps: 500),
            .init(width: 1280, height: 720, fpsCenti: 3000, active: false, bitrateKbps: 0),
        ])
        var bytes = [UInt8](repeating: 0, count: 200)
        let length = bytes.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            state.write(into: &writer)
            return writer.offset
        }
        bytes.withUnsafeBytes { producer.linkMessage(UnsafeRawBufferPointer(rebasing: $0[0..<length]), now: now) }
        let layers = producer.selectorLayers(now: now)
        #expect(layers.map(\.width) == [320, 640, 1280])
        #expect(layers.map(\.active) == [true, true, false])
        #expect(layers[1].fps == 29.5 && layers[1].bitrateKbps == 500)
        #expect(producer.layerSize(1) == (640, 360))
        #expect(producer.layerStats(now: now).map(\.width) == [320, 640, 1280])

        // A layer the link carries: its own figures (here from a key frame of layer 0).
        let packet = MediaTestSupport.vp8Packet(ssrc: 11, sequence: 1, timestamp: 0, keyFrame: true, size: (336, 188))
        var copy = packet
        copy.withUnsafeMutableBytes { producer.transport(producer.transport, didReceiveRTP: $0, now: now) }
        #expect(producer.selectorLayers(now: now)[0].width == 336)
        #expect(producer.selectorLayers(now: now)[1].width == 640)
    }
}
