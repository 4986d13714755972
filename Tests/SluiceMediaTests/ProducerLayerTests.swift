import SluiceTransport
import SluiceVocabulary
import SluiceWire
import Testing
@testable import SluiceMedia
@testable import SluiceTransport

/// The producer's layer and key-frame rules, seen from a sink of its router: which layer each
/// packet is given, which packets are key frames, and how the players' key-frame requests
/// reach each layer's gate (one PLI per layer while one is outstanding; other layers apart).
struct ProducerLayerTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var rids: [String]
        /// SSRC, rid sent (nil: none), key frame.
        var packets: [(ssrc: UInt32, rid: String?, keyFrame: Bool)]
        /// What the sink sees: layer and key-frame flag per packet forwarded.
        var forwarded: [(layer: Int, keyFrame: Bool)]
        var testDescription: String { name }
    }

    private func bytes(ssrc: UInt32, sequence: UInt16, rid: String?, keyFrame: Bool) -> [UInt8] {
        var bytes = MediaTestSupport.vp8Packet(ssrc: ssrc, sequence: sequence, timestamp: UInt32(sequence) * 3000,
                                               keyFrame: keyFrame)
        guard let rid else { return bytes }
        // One-byte header extension (RFC 8285): id 4, the rid.
        bytes[0] |= 0x10
        let ridBytes = Array(rid.utf8)
        var ext: [UInt8] = [0xbe, 0xde, 0x00, 0x01, UInt8(4 << 4 | (ridBytes.count - 1))] + ridBytes
        while ext.count % 4 != 0 { ext.append(0) }
        if ext.count > 8 { ext[3] = UInt8((ext.count - 4) / 4) }
        bytes.insert(contentsOf: ext, at: 12)
        return bytes
    }

    @Test(arguments: [
        Case(name: "one layer: every packet is layer 0, key frames by the VP8 header",
             rids: [], packets: [(7, nil, true), (7, nil, false), (7, nil, true)],
             forwarded: [(0, true), (0, false), (0, true)]),
        Case(name: "rid simulcast: the layer is the rid's rank, learned once per SSRC",
             rids: ["q", "h", "f"], packets: [(30, "f", true), (10, "q", false), (30, nil, false), (20, "h", true)],
             forwarded: [(2, true), (0, false), (2, false), (1, true)]),
        Case(name: "rid simulcast: an SSRC never named by a rid is not forwarded",
             rids: ["q", "f"], packets: [(10, "q", true), (99, nil, true), (10, nil, false)],
             forwarded: [(0, true), (0, false)]),
    ])
    func eachPacketIsGivenItsLayerAndKeyFrameFlag(_ test: Case) throws {
        let worker = try MediaTestSupport.worker()
        let endpoint = MediaTestSupport.endpoint(.publish, video: MediaTestSupport.videoTrack(rids: test.rids, ridID: 4))
        let producer = Producer(parameters: endpoint, transport: try MediaTestSupport.transport(worker, endpoint),
                                statsBoard: nil)
        defer { producer.releaseBuffers() }
        let router = Router(stream: "s")
        router.attach(producer)
        let sink = TestSink()
        router.add(sink)
        for (i, packet) in test.packets.enumerated() {
            var copy = bytes(ssrc: packet.ssrc, sequence: UInt16(100 + i), rid: packet.rid, keyFrame: packet.keyFrame)
            copy.withUnsafeMutableBytes { producer.transport(producer.transport, didReceiveRTP: $0, now: 1_000 + UInt64(i)) }
        }
        #expect(sink.described.map(\.layer) == test.forwarded.map(\.layer))
        #expect(sink.described.map(\.keyFrame) == test.forwarded.map(\.keyFrame))
        // The key-frame cache marks each layer's newest key frame.
        for (layer, keyFrame) in test.forwarded where keyFrame {
            #expect(router.keyFrameMark(layer: layer) != nil, "layer \(layer) has no key frame mark")
        }
    }

    /// Players' requests reach the layer's gate through the router: the first goes out, a
    /// second for the same layer waits while the first is outstanding, another layer is free,
    /// and the layer's key frame answers the request.
    @Test func keyFrameRequestsAreGatedPerLayer() throws {
        let worker = try MediaTestSupport.worker()
        let endpoint = MediaTestSupport.endpoint(.publish, video: MediaTestSupport.videoTrack(rids: ["q", "f"], ridID: 4))
        let transport = try MediaTestSupport.transport(worker, endpoint)
        transport.connectForTesting()
        let producer = Producer(parameters: endpoint, transport: transport, statsBoard: nil)
        defer { producer.releaseBuffers() }
        let router = Router(stream: "s")
        router.attach(producer)
        let now = MonotonicClock.nowMicros()
        for (i, (ssrc, rid)) in [(UInt32(10), "q"), (UInt32(20), "f")].enumerated() {
            var copy = bytes(ssrc: ssrc, sequence: UInt16(i), rid: rid, keyFrame: false)
            copy.withUnsafeMutableBytes { producer.transport(producer.transport, didReceiveRTP: $0, now: now) }
        }
        router.requestKeyFrame(layer: 1)
        // The request for layer 1 is outstanding: its gate refuses another now; layer 0's does not.
        var gates = producer.layers.map(\.keyFrameRequests)
        let later = MonotonicClock.nowMicros()
        let again = (layer0: gates[0].shouldRequest(now: later), layer1: gates[1].shouldRequest(now: later))
        #expect(again.layer0 && !again.layer1)
    }
}
