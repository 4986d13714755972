import SluiceTransport
import SluiceWire
import Testing
@testable import SluiceMedia

struct NackGeneratorTests {
    @Test func asksForGapsAcrossWrapThenGivesUp() {
        var nacks = NackGenerator()
        nacks.received(65533, now: 0)
        nacks.received(1, now: 1_000)         // 65534, 65535 and 0 are missing
        #expect(nacks.due(now: 2_000) == [65534, 65535, 0])
        #expect(nacks.due(now: 3_000) == [])  // not again before the retry interval
        nacks.received(65535, now: 4_000)     // a retransmission arrives
        #expect(nacks.due(now: 2_000 + NackGenerator.retryMicros) == [65534, 0])
        // After the give-up time nothing is asked any more.
        #expect(nacks.due(now: 1_000 + NackGenerator.giveUpMicros + 1) == [])
        #expect(nacks.missingCount == 0)
    }

    @Test func reorderingWithinTheStreamIsNotLoss() {
        var nacks = NackGenerator()
        for s: UInt16 in [10, 12, 11, 13] { nacks.received(s, now: 0) }
        #expect(nacks.due(now: 100) == [])
    }

    @Test func limitsTriesPerPacket() {
        var nacks = NackGenerator()
        nacks.received(1, now: 0)
        nacks.received(3, now: 0)
        var asked = 0
        for i in 0..<20 { asked += nacks.due(now: UInt64(i) * NackGenerator.retryMicros).count }
        #expect(asked == NackGenerator.maxTries)
    }
}

struct SentPacketMapTests {
    /// Player sequence numbers map back to the source packet and the values sent, including
    /// across the player's own wrap and after a layer switch.
    @Test(arguments: [
        (UInt16(65535), UInt8(0), UInt16(900)),
        (UInt16(0), UInt8(2), UInt16(17)),      // after a switch to layer 2, numbering continues
        (UInt16(1), UInt8(2), UInt16(18)),
    ])
    func mapsPlayerSequenceToSource(out: UInt16, layer: UInt8, source: UInt16) {
        var map = SentPacketMap()
        map.record(.init(outTimestamp: 42, pictureID: 7, outSequence: out, sourceSequence: source,
                         tl0PicIdx: 3, layer: layer, valid: true))
        let entry = map.lookup(out)
        #expect(entry?.layer == layer && entry?.sourceSequence == source && entry?.outTimestamp == 42)
        #expect(entry?.pictureID == 7 && entry?.tl0PicIdx == 3)
        #expect(map.lookup(out &+ 1) == nil)
        // A number `slots` later reuses the slot: the old one is no longer answered.
        map.record(.init(outTimestamp: 0, pictureID: -1, outSequence: out &+ UInt16(SentPacketMap.slots),
                         sourceSequence: 1, tl0PicIdx: -1, layer: 0, valid: true))
        #expect(MemoryLayout<SentPacketMap.Entry>.stride == 16)
        #expect(map.lookup(out) == nil)
    }
}

struct RetransmissionBufferTests {
    @Test func storesOnceAndRecyclesBuffers() throws {
        let pool = PacketBufferPool(capacity: 8)
        let shared = SharedPackets(pool: pool)
        var buffer = RetransmissionBuffer()
        let packet: [UInt8] = [0x80, 96, 0, 5, 1, 2, 3, 4, 5, 6, 7, 8, 0xaa, 0xbb]
        let first = packet.withUnsafeBytes { buffer.store($0, sequence: 5, shared: shared) }
        #expect(first >= 0 && pool.available == 7)
        let stored = try #require(buffer.packet(sequence: 5, shared: shared))
        #expect(Array(stored) == packet)
        #expect(buffer.packet(sequence: 6, shared: shared) == nil)
        // The same slot, 512 numbers later, reuses its buffer.
        let again = packet.withUnsafeBytes { buffer.store($0, sequence: 5 + UInt16(RetransmissionBuffer.slots), shared: shared) }
        #expect(again == first && pool.available == 7)
        #expect(buffer.packet(sequence: 5, shared: shared) == nil)
        // What arrived is known, so a browser's redundant RTX is not forwarded twice.
        #expect(buffer.holds(sequence: 5 + UInt16(RetransmissionBuffer.slots)))
        #expect(!buffer.holds(sequence: 5) && !buffer.holds(sequence: 6))
        buffer.release(to: shared)
        #expect(pool.available == 8)
    }

    /// A buffer another worker still holds is never rewritten: the slot takes a fresh one, and
    /// the old one goes back to the pool only after the other worker lets go and the owner
    /// sweeps.
    @Test func aBufferHeldElsewhereIsLeftToItsHolder() {
        let pool = PacketBufferPool(capacity: 8)
        let shared = SharedPackets(pool: pool)
        var buffer = RetransmissionBuffer()
        let packet: [UInt8] = [0x80, 96, 0, 5, 1, 2, 3, 4, 5, 6, 7, 8, 0xaa, 0xbb]
        let first = packet.withUnsafeBytes { buffer.store($0, sequence: 5, shared: shared) }
        shared.retain(first)
        let second = packet.withUnsafeBytes { buffer.store($0, sequence: 5 + UInt16(RetransmissionBuffer.slots), shared: shared) }
        #expect(second != first && pool.available == 6 && shared.orphansHeld == 1)
        #expect(shared.bytes(first, count: packet.count).elementsEqual(packet))
        shared.sweep()
        #expect(pool.available == 6)
        shared.releaseRemote(first)
        shared.sweep()
        #expect(pool.available == 7 && shared.orphansHeld == 0)
        buffer.release(to: shared)
        #expect(pool.available == 8)
    }
}
