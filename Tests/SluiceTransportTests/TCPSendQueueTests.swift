import Testing
@testable import SluiceTransport

/// Reads a byte stream back into packets, as the peer's decoder would.
private func unframe(_ stream: [UInt8]) -> [[UInt8]]? {
    var packets: [[UInt8]] = []
    var i = 0
    while i < stream.count {
        guard i + 2 <= stream.count else { return nil }
        let length = Int(stream[i]) << 8 | Int(stream[i + 1])
        guard i + 2 + length <= stream.count else { return nil }
        packets.append(Array(stream[(i + 2)..<(i + 2 + length)]))
        i += 2 + length
    }
    return packets
}

/// Drains up to `limit` bytes, as a socket with that much room would take them.
@discardableResult
private func drain(_ queue: TCPSendQueue, into stream: inout [UInt8], limit: Int) -> Int {
    queue.drain { a, b in
        let first = min(a.count, limit)
        stream += a[0..<first]
        let second = min(b.count, limit - first)
        if second > 0 { stream += b[0..<second] }
        return first + second
    }
}

private func packet(_ index: Int, length: Int) -> [UInt8] {
    (0..<length).map { UInt8(truncatingIfNeeded: index &* 31 &+ $0) }
}

struct TCPSendQueueTests {
    @Test func framesGoInWholeWithTheirLength() {
        let queue = TCPSendQueue(capacity: 1024)
        let packets = [packet(1, length: 20), packet(2, length: 300), packet(3, length: 1)]
        for p in packets { #expect(p.withUnsafeBytes { queue.enqueue($0) }) }
        #expect(queue.queuedBytes == packets.reduce(0) { $0 + 2 + $1.count })
        var stream: [UInt8] = []
        drain(queue, into: &stream, limit: .max)
        #expect(unframe(stream) == packets)
        #expect(queue.isEmpty)
        #expect(stream.prefix(2) == [0, 20])
    }

    @Test func overflowDropsWholePacketsAndCountsThem() {
        let queue = TCPSendQueue(capacity: 1000)
        var accepted: [[UInt8]] = []
        for i in 0..<10 {
            let p = packet(i, length: 200)
            if p.withUnsafeBytes({ queue.enqueue($0) }) { accepted.append(p) }
        }
        // 202 bytes per frame: four fit in 1000 bytes, six are dropped.
        #expect(accepted.count == 4)
        #expect(queue.droppedPackets == 6)
        #expect(queue.queuedPackets == 4)
        #expect(queue.queuedBytes == 808)
        // A smaller one still fits in the room left.
        #expect(packet(99, length: 190).withUnsafeBytes { queue.enqueue($0) })
        var stream: [UInt8] = []
        drain(queue, into: &stream, limit: .max)
        #expect(unframe(stream) == accepted + [packet(99, length: 190)])
    }

    @Test func emptyAndOverlongPacketsAreRefused() {
        let queue = TCPSendQueue(capacity: 70_000)
        #expect(![UInt8]().withUnsafeBytes { queue.enqueue($0) })
        #expect(![UInt8](repeating: 1, count: 65536).withUnsafeBytes { queue.enqueue($0) })
        #expect([UInt8](repeating: 1, count: 65535).withUnsafeBytes { queue.enqueue($0) })
        #expect(queue.droppedPackets == 2)
    }

    /// A socket that takes any number of bytes at a time, with the ring wrapping around many
    /// times: the peer always reads exactly the accepted packets, never a torn frame.
    @Test func partialWritesAndWraparoundKeepTheStreamWhole() {
        for capacity in [97, 256, 1000] {
            for limit in [1, 2, 3, 7, 50, 333] {
                let queue = TCPSendQueue(capacity: capacity)
                var accepted: [[UInt8]] = []
                var stream: [UInt8] = []
                for i in 0..<400 {
                    let p = packet(i, length: 1 + (i * 13) % 60)
                    if p.withUnsafeBytes({ queue.enqueue($0) }) { accepted.append(p) }
                    if i % 3 == 0 { drain(queue, into: &stream, limit: limit) }
                }
                while !queue.isEmpty { drain(queue, into: &stream, limit: limit) }
                #expect(unframe(stream) == accepted, "capacity \(capacity), socket takes \(limit)")
                #expect(UInt64(accepted.count) == queue.queuedPackets)
                #expect(queue.queuedPackets + queue.droppedPackets == 400)
            }
        }
    }

    @Test func aFullSocketOrAnErrorTakesNothing() {
        let queue = TCPSendQueue(capacity: 100)
        #expect(packet(1, length: 10).withUnsafeBytes { queue.enqueue($0) })
        #expect(queue.drain { _, _ in 0 } == 0)
        #expect(queue.queuedBytes == 12)
        #expect(queue.drain { _, _ in -1 } == -1)
        #expect(queue.queuedBytes == 12)
    }
}
