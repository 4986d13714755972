import SluiceRTP
import SluiceTransport
import SluiceWire
import Testing
@testable import SluiceMedia

/// The relay between two workers, driven by hand on the test's thread (the workers are not
/// started): a packet handed by the home reaches the other worker's ingress by reference, is
/// kept there for NACKs, and every reference comes back; a packet for an ingress that went
/// away is given back, never delivered to the one that took its slot.
struct WorkerRelayTests {
    private func pair() throws -> (home: WorkerRelay, other: WorkerRelay, workers: [MediaWorker]) {
        let workers = [try MediaWorker(index: 0, bindAddress: SocketAddress(host: "127.0.0.1", port: 0)!, poolCapacity: 64),
                       try MediaWorker(index: 1, bindAddress: SocketAddress(host: "127.0.0.1", port: 0)!, poolCapacity: 64)]
        let relays = workers.map { WorkerRelay(index: $0.index, worker: $0) }
        WorkerRelay.link(relays)
        return (relays[0], relays[1], workers)
    }

    private func presentSnapshot() -> SourceSnapshot {
        var snapshot = SourceSnapshot()
        snapshot.present = true
        let selector = LayerSelector.Layer(index: 0, width: 640, height: 360)
        snapshot.layers = [SourceSnapshot.Layer(selector: selector,
                                                stats: LayerStats(index: 0, rid: nil, width: 640, height: 360, fps: 30,
                                                                  bitrateKbps: 500, active: true),
                                                fps: 30, temporalLayers: 1, senderReportMicros: 0, senderReportRTP: 0)]
        return snapshot
    }

    @Test func aHandedPacketIsHeldByReferenceAndGivenBack() throws {
        let (home, other, workers) = try pair()
        let homePackets = workers[0].shared
        let available = homePackets.pool.available
        let ingress = try #require(other.openIngress(stream: "s", home: 0))
        let router = Router(stream: "s", relay: other)
        _ = router.apply(presentSnapshot(), from: ingress, measured: true, now: 1)
        #expect(ingress.isAttached && router.measuredLayers.count == 1 && router.layerSize(0) == (640, 360))

        // The home stores the packet once (as its retransmission buffer does) and hands it over.
        let bytes = MediaTestSupport.vp8Packet(ssrc: 1, sequence: 700, timestamp: 9000, keyFrame: true)
        let buffer = try #require(homePackets.take())
        homePackets.pool.pointer(buffer).copyMemory(from: bytes, byteCount: bytes.count)
        let view = homePackets.bytes(buffer, count: bytes.count)
        let packet = try #require(RTPPacket(parsing: view))
        home.hand(ForwardedPacket(packet: packet, kind: .video, layer: 0, isKeyFrame: true, temporalLayer: nil, vp8: nil,
                                  clockRate: 90_000, audioLevel: nil, now: 1, stored: buffer),
                  to: [RelayTarget(worker: 1, key: ingress.key)])
        #expect(homePackets.references(buffer) == 2)
        #expect(!other.pump(now: 2))
        #expect(other.delivered.load(ordering: .relaxed) == 1)

        // Kept for a NACK on the relaying worker: the very bytes the home stored.
        let stored = try #require(router.storedPacket(layer: 0, sequence: 700))
        #expect(stored.elementsEqual(bytes))
        #expect(homePackets.references(buffer) == 2)

        // The home lets go first (its slot moved on); the buffer waits for the other worker.
        homePackets.release(buffer)
        homePackets.sweep()
        #expect(homePackets.orphansHeld == 1)
        other.closeIngress(ingress)
        homePackets.sweep()
        #expect(homePackets.orphansHeld == 0 && homePackets.pool.available == available)
    }

    @Test func aPacketForAClosedIngressIsGivenBackNotDeliveredToItsSuccessor() throws {
        let (home, other, workers) = try pair()
        let homePackets = workers[0].shared
        let first = try #require(other.openIngress(stream: "a", home: 0))
        other.closeIngress(first)
        let second = try #require(other.openIngress(stream: "b", home: 0))
        #expect(second.key.slot == first.key.slot && second.key.generation != first.key.generation)
        #expect(other.ingress(first.key) == nil && other.ingress(second.key) === second)
        let router = Router(stream: "b", relay: other)
        _ = router.apply(presentSnapshot(), from: second, measured: true, now: 1)

        let bytes = MediaTestSupport.vp8Packet(ssrc: 1, sequence: 5, timestamp: 90, keyFrame: true)
        let buffer = try #require(homePackets.take())
        homePackets.pool.pointer(buffer).copyMemory(from: bytes, byteCount: bytes.count)
        let packet = try #require(RTPPacket(parsing: homePackets.bytes(buffer, count: bytes.count)))
        home.hand(ForwardedPacket(packet: packet, kind: .video, layer: 0, isKeyFrame: true, temporalLayer: nil, vp8: nil,
                                  clockRate: 90_000, audioLevel: nil, now: 1, stored: buffer),
                  to: [RelayTarget(worker: 1, key: first.key)])
        _ = other.pump(now: 2)
        #expect(other.stale.load(ordering: .relaxed) == 1 && other.delivered.load(ordering: .relaxed) == 1)
        #expect(router.storedPacket(layer: 0, sequence: 5) == nil)
        #expect(homePackets.references(buffer) == 1)
        homePackets.release(buffer)
        other.closeIngress(second)
    }

    /// Audio is not stored by the home: one copy is made for every relaying worker, and it
    /// goes back to the pool once they all forwarded it.
    @Test func anUnstoredPacketIsCopiedOnceForAllWorkers() throws {
        let (home, other, workers) = try pair()
        let homePackets = workers[0].shared
        let available = homePackets.pool.available
        let ingress = try #require(other.openIngress(stream: "s", home: 0))
        let router = Router(stream: "s", relay: other)
        _ = router.apply(presentSnapshot(), from: ingress, measured: true, now: 1)
        var bytes: [UInt8] = [0x80, 111, 0, 9, 0, 0, 0, 1, 0, 0, 0, 2, 0xfc, 0xff, 0xfe]
        try bytes.withUnsafeMutableBytes { raw in
            let packet = try #require(RTPPacket(parsing: raw))
            home.hand(ForwardedPacket(packet: packet, kind: .audio, layer: 0, isKeyFrame: false, temporalLayer: nil,
                                      vp8: nil, clockRate: 48_000, audioLevel: 30, now: 1),
                      to: [RelayTarget(worker: 1, key: ingress.key)])
        }
        #expect(homePackets.pool.available == available - 1 && homePackets.orphansHeld == 1)
        _ = other.pump(now: 2)
        homePackets.sweep()
        #expect(homePackets.pool.available == available && homePackets.orphansHeld == 0)
        other.closeIngress(ingress)
    }
}
