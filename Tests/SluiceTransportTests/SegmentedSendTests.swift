import CShims
import Glibc
import SluiceWire
import Testing

/// UDP GSO over real loopback sockets: what `sluice_sendmmsg_segmented` groups into GSO
/// messages must reach each receiver as the same datagrams, byte for byte, the large ones
/// (video) in order and the small ones (audio, RTCP) in order; a small one may pass a large one.
@Suite struct SegmentedSendTests {
    /// A bound non-blocking UDP socket on 127.0.0.1 and its address.
    private static func bound() -> (Int32, SocketAddress) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var size: Int32 = 4 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        SocketAddress(host: "127.0.0.1", port: 0)!.write(to: &storage)
        _ = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, SocketAddress(&storage)!)
    }

    /// Datagram `index` to receiver `receiver`: its length, and bytes that name both.
    private static func datagram(receiver: Int, index: Int, length: Int) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ receiver &* 31 &+ index &* 13) }
    }

    /// Sends `lengths[r]` to receiver r, interleaved the way a fan-out queues them (datagram
    /// k to every receiver, then k+1), and returns what each receiver got and how many
    /// system-call messages carried the datagrams.
    private static func send(lengths: [[Int]], segmentation: Bool) -> (received: [[[UInt8]]], sent: Int, messages: Int) {
        let (sender, _) = bound()
        let receivers = lengths.map { _ in bound() }
        defer { close(sender); receivers.forEach { close($0.0) } }
        let total = lengths.reduce(0) { $0 + $1.count }
        let batch = sluice_mmsg_batch_create(UInt32(total))!
        defer { sluice_mmsg_batch_destroy(batch) }
        sluice_mmsg_set_segmentation(batch, segmentation ? 1 : 0)
        let addresses = UnsafeMutablePointer<sockaddr_storage>.allocate(capacity: total)
        var buffers: [UnsafeMutableRawPointer] = []
        defer { addresses.deallocate(); buffers.forEach { $0.deallocate() } }
        var slot = 0
        for index in 0..<(lengths.map(\.count).max() ?? 0) {
            for (r, receiver) in receivers.enumerated() where index < lengths[r].count {
                let bytes = datagram(receiver: r, index: index, length: lengths[r][index])
                let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytes.count), alignment: 8)
                buffer.copyMemory(from: bytes, byteCount: bytes.count)
                buffers.append(buffer)
                receiver.1.write(to: addresses + slot)
                sluice_mmsg_set(batch, UInt32(slot), buffer, bytes.count, addresses + slot)
                slot += 1
            }
        }
        var dropped: UInt32 = 0
        var messages: UInt32 = 0
        let sent = Int(sluice_sendmmsg_segmented(sender, batch, 0, UInt32(total), &dropped, &messages))
        var received: [[[UInt8]]] = []
        var scratch = [UInt8](repeating: 0, count: 65536)
        for receiver in receivers {
            var got: [[UInt8]] = []
            while true {
                let n = recv(receiver.0, &scratch, scratch.count, Int32(MSG_DONTWAIT))
                if n < 0 { break }
                got.append(Array(scratch[0..<n]))
            }
            received.append(got)
        }
        return (received, sent, Int(messages))
    }

    private static func expected(_ lengths: [[Int]]) -> [[[UInt8]]] {
        lengths.enumerated().map { r, sizes in sizes.enumerated().map { datagram(receiver: r, index: $0, length: $1) } }
    }

    /// Each receiver's datagrams as (large ones in order, small ones in order).
    private static func byClass(_ received: [[[UInt8]]]) -> [[[[UInt8]]]] {
        received.map { got in [got.filter { $0.count >= 400 }, got.filter { $0.count < 400 }] }
    }

    @Test func datagramsToOneAddressArriveIntactAndInOrderWithAndWithoutSegmentation() {
        // A frame split evenly (longer first), audio between, a longer packet after a shorter
        // one, one alone, and a run longer than the kernel's 64 segments.
        let lengths: [[Int]] = [
            [1201, 1201, 1200, 1200, 120, 1200, 1250],
            [1100, 1100, 1100, 1100],
            [300],
            Array(repeating: 1000, count: 70) + [20],
            [1500, 1500, 1500],   // over the segment size bound: sent one by one
        ]
        for segmentation in [true, false] {
            let result = Self.send(lengths: lengths, segmentation: segmentation)
            #expect(result.sent == lengths.reduce(0) { $0 + $1.count })
            #expect(Self.byClass(result.received) == Self.byClass(Self.expected(lengths)), "segmentation \(segmentation)")
            #expect(result.received.map(\.count) == lengths.map(\.count))
            // On: receiver 0's large ones go as [1201, 1201, 1200], [1200, 1200], [1250] and its
            // 120 alone; receiver 1's four as one; 2's alone; 3's as 64, then 6, then the small
            // 20 alone; 4's three one by one. Off: one message per datagram.
            #expect(result.messages == (segmentation ? 12 : 86))
        }
    }

    @Test func manyReceiversShareTheBatch() {
        // 200 players, the four packets of one frame each: the load tester's fan-out.
        let lengths = (0..<200).map { r in [1180, 1180, 1179, 1179].map { $0 - r % 3 } }
        let result = Self.send(lengths: lengths, segmentation: true)
        #expect(result.sent == 800)
        #expect(result.received == Self.expected(lengths))
        // Each frame goes as a run of three (the shorter third ends it) and the fourth alone.
        #expect(result.messages == 400)
    }
}
