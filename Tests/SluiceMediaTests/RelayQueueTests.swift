import Foundation
import Synchronization
import SluiceTransport
import SluiceWire
import Testing
@testable import SluiceMedia

/// The cross-worker queue and the reference counts behind it (docs/design.md "One stream on
/// every worker").
struct RelayQueueTests {
    @Test func isBoundedAndKeepsOrder() {
        let queue = RelayQueue()
        for i in 0..<RelayQueue.capacity {
            var entry = RelayEntry()
            entry.buffer = Int32(i)
            #expect(queue.push(entry))
        }
        // Full: the next push is refused and counted, never blocks.
        #expect(!queue.push(RelayEntry()))
        #expect(queue.dropped.load(ordering: .relaxed) == 1)
        #expect(queue.count == RelayQueue.capacity)
        for i in 0..<RelayQueue.capacity { #expect(queue.pop()?.buffer == Int32(i)) }
        #expect(queue.pop() == nil)
        #expect(queue.pushed == RelayQueue.capacity)
    }

    /// One producer thread and one consumer thread, many times the ring's size: every entry
    /// arrives once, in order, while the producer retries when the ring is full.
    @Test func oneProducerOneConsumerAcrossThreads() {
        let queue = RelayQueue()
        let total = RelayQueue.capacity * 20
        let producer = Thread(block: {
            var next = 0
            while next < total {
                var entry = RelayEntry()
                entry.buffer = Int32(next)
                if queue.push(entry) { next += 1 }
            }
        })
        producer.start()
        var expected: Int32 = 0
        var outOfOrder = 0
        while expected < Int32(total) {
            guard let entry = queue.pop() else { continue }
            if entry.buffer != expected { outOfOrder += 1 }
            expected = entry.buffer + 1
        }
        #expect(outOfOrder == 0)
        #expect(queue.pop() == nil)
        #expect(queue.pushed == total)
    }

    /// The owner stores, lends to a second thread through the queue, and lets go; the other
    /// thread lets go as it is done. Every buffer goes back to the pool, and none while it was
    /// still held.
    @Test func referenceCountsReturnToZero() {
        let pool = PacketBufferPool(capacity: 64)
        let shared = SharedPackets(pool: pool)
        let queue = RelayQueue()
        let rounds = 20_000
        let done = Flag()
        let reader = Thread(block: {
            while true {
                if let entry = queue.pop() {
                    // The bytes are the owner's, untouched while we hold the reference.
                    let bytes = shared.bytes(entry.buffer, count: 4)
                    let value = bytes.load(as: UInt32.self)
                    precondition(value == UInt32(entry.key), "a held buffer was rewritten")
                    shared.releaseRemote(entry.buffer)
                } else if done.value.load(ordering: .acquiring) && queue.count == 0 {
                    return
                }
            }
        })
        reader.start()
        var sent = 0
        var exhausted = 0
        while sent < rounds {
            shared.sweep()
            guard let buffer = shared.take() else {
                exhausted += 1
                continue
            }
            shared.pool.pointer(buffer).storeBytes(of: UInt32(sent), as: UInt32.self)
            var entry = RelayEntry()
            entry.buffer = buffer
            entry.key = UInt32(sent)
            shared.retain(buffer)
            if !queue.push(entry) { shared.unretain(buffer) }
            shared.release(buffer)
            sent += 1
        }
        done.value.store(true, ordering: .releasing)
        while !reader.isFinished { usleep(1000) }
        shared.sweep()
        #expect(shared.orphansHeld == 0)
        #expect(pool.available == pool.capacity)
    }
}

private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}
