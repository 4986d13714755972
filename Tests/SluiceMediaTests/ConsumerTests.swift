import SluiceVocabulary
import SluiceWire
import Testing
@testable import SluiceMedia
@testable import SluiceTransport

/// A player's consumer behind a router with a test source of three layers: which layer it
/// takes, that it waits for a key frame of it (asking through the router, whose queue hands
/// the request back after the fan-out), mutes, and instant join's catch-up from the cache
/// handing over to the live packets. Its transport counts as connected without a handshake,
/// so what it sends is counted by its `RTPSender` and goes nowhere.
struct ConsumerTests {
    private struct Setup {
        let router: Router
        let source: TestSource
        let consumer: Consumer
        var videoSent: UInt64 { consumer.sender.state.video?.packets ?? 0 }
        /// The source sequence number of each video packet sent, oldest first.
        var sentSources: [UInt16] {
            guard let newest = consumer.state.forwarder.video?.munger.lastOutSequence else { return [] }
            let last = UInt16(truncatingIfNeeded: newest)
            return (0..<UInt16(videoSent)).reversed().compactMap { consumer.sender.state.sent.lookup(last &- $0)?.sourceSequence }
        }
    }

    private func setup(_ constraints: StreamConstraints = StreamConstraints(), instantJoin: Bool = true,
                       beforeJoin: (Router, TestSource) -> Void = { _, _ in }) throws -> Setup {
        let worker = try MediaTestSupport.worker()
        let play = MediaTestSupport.endpoint(.play, video: MediaTestSupport.videoTrack(), handle: "p")
        let transport = try MediaTestSupport.transport(worker, play)
        transport.connectForTesting()
        let consumer = Consumer(parameters: play, constraints: constraints, transport: transport, statsBoard: nil,
                                instantJoin: instantJoin)
        let router = Router(stream: "s")
        let source = TestSource(layers: threeLayers)
        router.attach(source)
        beforeJoin(router, source)
        router.add(consumer)
        return Setup(router: router, source: source, consumer: consumer)
    }

    private func packet(_ sequence: UInt16, keyFrame: Bool = false, size: (Int, Int) = (1280, 720)) -> [UInt8] {
        MediaTestSupport.vp8Packet(ssrc: 1, sequence: sequence, timestamp: UInt32(sequence) * 3000, keyFrame: keyFrame,
                                   size: size)
    }

    struct LayerCase: CustomTestStringConvertible, Sendable {
        var name: String
        var video: VideoConstraints
        var layer: Int
        var testDescription: String { name }
    }

    /// The layer a joining player targets, by its constraints (no bandwidth estimate yet):
    /// the consumer asks `LayerSelector` with what the router measured, and asks the source
    /// for that layer's key frame (nothing cached).
    @Test(arguments: [
        LayerCase(name: "no constraints: top", video: .init(), layer: 2),
        LayerCase(name: "bounding box 640x360", video: .init(width: 640, height: 360), layer: 1),
        LayerCase(name: "quality low", video: .init(quality: .low), layer: 0),
        LayerCase(name: "bitrate cap 600", video: .init(bitrateKbps: 600), layer: 1),
        LayerCase(name: "height 200", video: .init(height: 200), layer: 0),
    ])
    func aJoiningPlayerTargetsTheLayerItsConstraintsAllow(_ test: LayerCase) throws {
        let s = try setup(StreamConstraints(video: test.video))
        #expect(s.consumer.state.forwarder.targetLayer == test.layer)
        #expect(s.consumer.currentLayer == nil)
        #expect(s.source.requests.last?.contains(layer: test.layer) == true)
        #expect(s.consumer.wantedVideoLayers == 1 << UInt32(test.layer))
    }

    /// Delta frames of the target layer wait for its key frame: asked for inside the fan-out,
    /// so the router returns it; then the key frame starts the video and the rest follows.
    /// Packets of other layers are never sent.
    @Test func waitsForTheTargetLayersKeyFrame() throws {
        let s = try setup()
        let requested = s.source.forward(packet(100), layer: 2)
        #expect(s.videoSent == 0)
        #expect(requested.contains(layer: 2) && !s.source.reentered)
        _ = s.source.forward(packet(101, keyFrame: true, size: (320, 180)), layer: 0, keyFrame: true)
        #expect(s.videoSent == 0)
        #expect(s.source.forward(packet(102, keyFrame: true), layer: 2, keyFrame: true).isEmpty)
        _ = s.source.forward(packet(103), layer: 2)
        _ = s.source.forward(packet(104), layer: 1)
        #expect(s.sentSources == [102, 103])
        #expect(s.consumer.currentLayer == 2)
    }

    /// A stream mute stops the video; unmuting waits for a key frame again (asked of every
    /// layer by the router), and the output continues its sequence without a gap.
    @Test func aStreamMuteStopsVideoAndResumesOnAKeyFrame() throws {
        let s = try setup()
        _ = s.source.forward(packet(200, keyFrame: true), layer: 2, keyFrame: true)
        _ = s.source.forward(packet(201), layer: 2)
        #expect(s.videoSent == 2)
        s.router.setMuted(.video, true)
        _ = s.source.forward(packet(202), layer: 2)
        s.router.setMuted(.video, false)
        #expect(s.source.requests.last?.everyLayer == true)
        _ = s.source.forward(packet(203), layer: 2)
        #expect(s.videoSent == 2)
        _ = s.source.forward(packet(204, keyFrame: true), layer: 2, keyFrame: true)
        #expect(s.sentSources == [200, 201, 204])
    }

    /// The player's own video mute sends nothing, and its unmute asks for a key frame.
    @Test func thePlayersOwnMuteStopsItsVideo() throws {
        let s = try setup()
        _ = s.source.forward(packet(300, keyFrame: true), layer: 2, keyFrame: true)
        s.consumer.setMuted(.video, true)
        #expect(s.consumer.wantedVideoLayers == 0)
        _ = s.source.forward(packet(301), layer: 2)
        #expect(s.videoSent == 1)
        let before = s.source.requests.count
        s.consumer.setMuted(.video, false)
        #expect(s.source.requests.count == before + 1)
        _ = s.source.forward(packet(302, keyFrame: true), layer: 2, keyFrame: true)
        #expect(s.videoSent == 2)
    }

    /// Dynacast: a player wants the paused layer it would take were every layer sent, so the
    /// publisher resumes it, and plays the best layer sent meanwhile. One whose constraints
    /// keep it lower does not want it.
    @Test func aPlayerWantsThePausedLayerItWouldTake() throws {
        var paused = threeLayers
        paused[2].active = false
        let s = try setup(beforeJoin: { router, _ in _ = router.layersMeasured(paused, now: 1_000_000) })
        #expect(s.consumer.state.forwarder.targetLayer == 1)
        #expect(s.consumer.wantedVideoLayers == 0b110)
        #expect(s.router.wantedVideoLayers() == 0b110)
        let boxed = try setup(StreamConstraints(video: .init(width: 640, height: 360)), beforeJoin: { router, _ in
            _ = router.layersMeasured(paused, now: 1_000_000)
        })
        #expect(boxed.consumer.wantedVideoLayers == 0b010)
    }

    /// An estimate below even the lowest layer's rate: the lowest layer, with its base temporal
    /// layer only, and `notEnoughBandwidth` (the forwarder keeps the frames the player's decoder
    /// can follow: ForwarderTests).
    @Test func belowTheLowestLayerOnlyItsBaseTemporalLayer() throws {
        let s = try setup()
        _ = s.source.forward(packet(400, keyFrame: true), layer: 2, keyFrame: true)
        #expect(s.consumer.state.forwarder.maxTemporalLayer == 255)
        var remb = Self.remb(bitsPerSecond: 100_000)
        remb.withUnsafeMutableBytes { s.consumer.transport(s.consumer.transport, didReceiveRTCP: $0, now: 2_000_000) }
        // Not congested: the drop waits `uncongestedDropMicros`, at the full frame rate.
        s.consumer.selectLayer(now: 2_000_000)
        #expect(s.consumer.state.forwarder.targetLayer == 2)
        #expect(s.consumer.state.forwarder.maxTemporalLayer == 255)
        s.consumer.selectLayer(now: 2_000_000 + Consumer.uncongestedDropMicros)
        #expect(s.consumer.state.forwarder.targetLayer == 0)
        #expect(s.consumer.state.forwarder.maxTemporalLayer == 0)
    }

    /// A NACK for a packet of a frame before the newest key frame sent is not answered (the
    /// player decodes on from the key frame); one for the key frame's packets or later is.
    @Test func noRetransmissionFromBeforeTheNewestKeyFrame() throws {
        let s = try setup()
        _ = s.source.forward(packet(500, keyFrame: true), layer: 2, keyFrame: true)
        _ = s.source.forward(packet(501), layer: 2)
        _ = s.source.forward(packet(502, keyFrame: true), layer: 2, keyFrame: true)
        _ = s.source.forward(packet(503), layer: 2)
        let sent = try #require(s.consumer.state.forwarder.video?.munger.lastOutSequence)
        let newest = UInt16(truncatingIfNeeded: sent)
        for back: UInt16 in [0, 1, 2] { s.consumer.sender.retransmit(newest &- back, from: s.router, now: 3_000_000) }
        #expect(s.source.storedAsked.map(\.sequence) == [503, 502])
    }

    /// A REMB (draft-alvestrand-rmcat-remb) for one SSRC, with an 18-bit mantissa.
    private static func remb(bitsPerSecond: UInt32) -> [UInt8] {
        [0x8f, 206, 0, 5, 0, 0, 0, 1, 0, 0, 0, 0, 0x52, 0x45, 0x4d, 0x42,
         1, UInt8(bitsPerSecond >> 16 & 0x03), UInt8(bitsPerSecond >> 8 & 0xff), UInt8(bitsPerSecond & 0xff),
         0, 0, 0, 1]
    }

    /// Instant join: a player that joins after the key frame starts from the cached one (the
    /// source is not asked), walks the cached packets to the live edge, then takes the live
    /// packets in order: each source packet sent once.
    @Test func theCatchUpHandsOverToTheLivePackets() throws {
        // The cache is judged by the worker's clock: its key frame must be fresh.
        let start = MonotonicClock.nowMicros()
        let s = try setup { router, source in
            for sequence: UInt16 in 400...403 {
                let bytes = packet(sequence, keyFrame: sequence == 400)
                source.store(bytes, layer: 2, sequence: sequence)
                _ = source.forward(bytes, layer: 2, keyFrame: sequence == 400, now: start + UInt64(sequence - 400) * 1_000)
            }
            _ = router.layersMeasured(threeLayers, now: start + 5_000)
        }
        #expect(s.source.requests.allSatisfy { !$0.contains(layer: 2) }, "asked the publisher despite the cache")
        // The next live packet starts the walk from the cached key frame, which goes at once;
        // the frames after it go as the walk's pace allows, and then the live ones.
        for sequence: UInt16 in 404...406 {
            let bytes = packet(sequence)
            s.source.store(bytes, layer: 2, sequence: sequence)
            _ = s.source.forward(bytes, layer: 2, now: start + 2_000_000 + UInt64(sequence - 404) * 100_000)
        }
        #expect(s.consumer.cacheStarts == 1)
        #expect(s.consumer.state.catchUpLayer == -1, "the walk did not reach the live edge")
        #expect(s.sentSources == Array(400...406))
    }
}
