import SluiceTransport
import SluiceVocabulary
import Testing
@testable import SluiceMedia

/// A producer fed synthetic RTP through its transport delegate, with no network.
struct ProducerTests {
    private func receive(_ producer: Producer, _ bytes: [UInt8], now: UInt64) {
        var copy = bytes
        copy.withUnsafeMutableBytes { producer.transport(producer.transport, didReceiveRTP: $0, now: now) }
    }

    /// The first packet announces the publish; a key frame gives the layer its size and
    /// the stream a `resize`; a repeated packet is counted once.
    @Test func learnsTheLayerFromItsPackets() throws {
        let worker = try MediaTestSupport.worker()
        let endpoint = MediaTestSupport.endpoint(.publish, video: MediaTestSupport.videoTrack())
        let producer = Producer(parameters: endpoint, transport: try MediaTestSupport.transport(worker, endpoint),
                                statsBoard: nil)
        var events: [WorkerEvent] = []
        producer.report = { events.append($0) }
        receive(producer, MediaTestSupport.vp8Packet(ssrc: 77, sequence: 1, timestamp: 0, keyFrame: true), now: 1_000)
        receive(producer, MediaTestSupport.vp8Packet(ssrc: 77, sequence: 2, timestamp: 3000, tid: 1), now: 2_000)
        receive(producer, MediaTestSupport.vp8Packet(ssrc: 77, sequence: 2, timestamp: 3000, tid: 1), now: 3_000)
        #expect(producer.layers.first?.ssrc == 77)
        #expect(producer.layerSize(0) == (640, 360))
        #expect(producer.layerTiming(0).temporalLayers == 2)
        #expect(producer.stats(now: 4_000).video?.packets == 2)
        guard case .publishing = events.first else {
            Issue.record("first event: \(String(describing: events.first))")
            return
        }
        #expect(events.contains(.resize(stream: "s", width: 640, height: 360)))
        producer.releaseBuffers()
    }

    /// RID-based simulcast: each layer takes the SSRC its rid first came with; a packet of an
    /// unknown SSRC without a rid is not forwarded.
    @Test func simulcastLayersAreToldApartByRid() throws {
        let worker = try MediaTestSupport.worker()
        let endpoint = MediaTestSupport.endpoint(.publish, video: MediaTestSupport.videoTrack(rids: ["q", "f"], ridID: 4))
        let producer = Producer(parameters: endpoint, transport: try MediaTestSupport.transport(worker, endpoint),
                                statsBoard: nil)
        #expect(producer.isSimulcast)
        for (ssrc, rid) in [(UInt32(10), "f"), (UInt32(20), "q")] {
            var bytes = MediaTestSupport.vp8Packet(ssrc: ssrc, sequence: 5, timestamp: 0)
            // One-byte header extension (RFC 8285): id 4, the rid.
            bytes[0] |= 0x10
            let ridBytes = Array(rid.utf8)
            var ext: [UInt8] = [0xbe, 0xde, 0x00, 0x01, UInt8(4 << 4 | (ridBytes.count - 1))] + ridBytes
            while ext.count % 4 != 0 { ext.append(0) }
            bytes.insert(contentsOf: ext, at: 12)
            receive(producer, bytes, now: 1_000)
        }
        receive(producer, MediaTestSupport.vp8Packet(ssrc: 30, sequence: 9, timestamp: 0), now: 2_000)
        #expect(producer.layers.map(\.ssrc) == [20, 10])
        #expect(producer.stats(now: 3_000).video?.packets == 2)
        producer.releaseBuffers()
    }
}
