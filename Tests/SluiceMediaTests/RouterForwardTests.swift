import SluiceVocabulary
import Testing
@testable import SluiceMedia

/// `Router.forward`, the fan-out: every sink gets each packet in the order it joined; key
/// frames asked for while the source is calling in wait and come back as the call's result,
/// never re-entering the source; a stream-muted kind reaches no sink.
struct RouterForwardTests {
    private func packet(_ sequence: UInt16, keyFrame: Bool = false) -> [UInt8] {
        MediaTestSupport.vp8Packet(ssrc: 1, sequence: sequence, timestamp: UInt32(sequence) * 3000, keyFrame: keyFrame)
    }

    @Test func everySinkGetsEveryPacketInJoinOrder() {
        let router = Router(stream: "s")
        let source = TestSource(layers: threeLayers)
        let (first, second, third) = (TestSink(), TestSink(), TestSink())
        router.add(first)
        router.attach(source)
        router.add(second)
        router.add(third)
        for sequence: UInt16 in 10...12 { _ = source.forward(packet(sequence)) }
        #expect([first, second, third].map(\.sequences) == Array(repeating: [10, 11, 12], count: 3))
        // Each learned of the source once: the first when it came, the others as they joined.
        #expect([first, second, third].map(\.presence) == [[false, true], [true], [true]])
        #expect(first.upstream === router && third.upstream === router)

        router.remove(second)
        _ = source.forward(packet(13))
        #expect(first.sequences.last == 13 && second.sequences.last == 12 && third.sequences.last == 13)
    }

    /// A sink's request during the fan-out is queued and returned by `forward`, merged with
    /// the others'; the source is not called meanwhile. Outside a fan-out it goes at once.
    @Test(arguments: [
        (asked: [Int?](arrayLiteral: 1), layers: [1], every: false),
        (asked: [0, 2], layers: [0, 2], every: false),
        (asked: [nil, 1], layers: [0, 1, 2], every: true),
        (asked: [], layers: [], every: false),
    ] as [(asked: [Int?], layers: [Int], every: Bool)])
    func requestsDuringTheFanOutComeBackAsItsResult(asked: [Int?], layers: [Int], every: Bool) {
        let router = Router(stream: "s")
        let source = TestSource(layers: threeLayers)
        router.attach(source)
        var sinks: [TestSink] = []
        for layer in asked {
            let sink = TestSink()
            sink.requestOnPacket = .some(layer)
            router.add(sink)
            sinks.append(sink)
        }
        let baseline = source.requests.count
        let requests = source.forward(packet(20))
        #expect(!source.reentered, "a sink's request reached the source inside the fan-out")
        #expect(source.requests.count == baseline)
        #expect(requests.isEmpty == asked.isEmpty)
        for layer in 0..<3 { #expect(requests.contains(layer: layer) == layers.contains(layer), "layer \(layer)") }
        #expect(requests.everyLayer == every)

        // Outside the fan-out the router passes a request straight on.
        router.requestKeyFrame(layer: 2)
        #expect(source.requests.last?.contains(layer: 2) == true && source.requests.count == baseline + 1)
    }

    /// The same holds while the source reports new layer measurements.
    @Test func requestsDuringLayerMeasurementsComeBackAsItsResult() {
        let router = Router(stream: "s")
        let source = TestSource(layers: threeLayers)
        router.attach(source)
        let sink = TestSink()
        sink.requestOnPacket = .some(1)
        router.add(sink)
        let before = source.requests.count
        let requests = router.layersMeasured(threeLayers, now: 5)
        #expect(sink.measured == 1)
        #expect(requests.contains(layer: 1) && !requests.contains(layer: 0))
        #expect(source.requests.count == before)
    }

    @Test func aMutedKindReachesNoSinkAndUnmutingVideoAsksForAKeyFrame() {
        let router = Router(stream: "s")
        let source = TestSource(layers: threeLayers)
        router.attach(source)
        let sink = TestSink()
        router.add(sink)
        router.setMuted(.video, true)
        #expect(source.forward(packet(30)).isEmpty)
        _ = source.forward(packet(31), kind: .audio)
        #expect(sink.sequences == [31] && sink.mutes == [.video])
        let before = source.requests.count
        router.setMuted(.video, false)
        #expect(source.requests.count == before + 1 && source.requests.last?.everyLayer == true)
        _ = source.forward(packet(32))
        #expect(sink.sequences == [31, 32] && sink.mutes == [.video, .video])
    }

    /// Instant join's cache: the router marks each layer's key frame before any sink sees the
    /// packet, and a new source forgets the old one's marks.
    @Test func keyFramesAreMarkedBeforeTheSinksSeeThem() {
        let router = Router(stream: "s")
        let source = TestSource(layers: threeLayers)
        router.attach(source)
        #expect(router.keyFrameMark(layer: 1) == nil)
        _ = source.forward(packet(40, keyFrame: true), layer: 1, keyFrame: true)
        _ = source.forward(packet(41), layer: 1)
        let mark = router.keyFrameMark(layer: 1)
        #expect(mark?.startSequence == 40 && mark?.newestSequence == 41)
        #expect(router.keyFrameMark(layer: 0) == nil)
        router.detach(source)
        router.attach(TestSource(layers: threeLayers))
        #expect(router.keyFrameMark(layer: 1) == nil)
    }

    /// What the sinks need, and sender reports, go to every sink alike.
    @Test func wantedLayersAreTheUnionOfTheSinks() {
        let router = Router(stream: "s")
        let (a, b) = (TestSink(), TestSink())
        a.wanted = 0b001
        b.wanted = 0b100
        router.add(a)
        router.add(b)
        #expect(router.takeWantedLayersChanged())
        #expect(!router.takeWantedLayersChanged())
        #expect(router.wantedVideoLayers() == 0b101)
        router.setRemoteWanted(0b010, worker: 1)
        #expect(router.wantedVideoLayers() == 0b111 && router.takeWantedLayersChanged())
        router.senderReport(kind: .video, layer: 2, ntp: 1, rtpTimestamp: 2)
        #expect(a.reports.map(\.layer) == [2] && b.reports.map(\.layer) == [2])
    }
}
