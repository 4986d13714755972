import CShims
import Glibc
import SluiceWire

/// The worker's send queue: what transports send during a loop turn waits here, and goes out
/// at the end of the receive batch in one `sendmmsg` per socket (ICE-TCP: `flushTCP`).
extension MediaWorker {
    /// Queues pool buffer `buffer` (its first `length` bytes) on `path`: in the UDP batch, or
    /// framed into the TCP connection's queue (copied, so the buffer goes back at once). The
    /// worker owns the buffer from here and returns it to the pool after sending.
    @inline(__always)
    public func queueSend(buffer: Int32, length: Int, path: MediaPath) {
        guard path.kind == .udp else {
            queueTCPSend(buffer: buffer, length: length, path: path)
            return
        }
        if sendCount == Self.sendQueueCapacity { flushSends() }
        let slot = sendCount
        sendBuffers[slot] = buffer
        sendSockets[slot] = path.local
        path.remote.write(to: sendAddresses + slot)
        sluice_mmsg_set(sendBatch, UInt32(slot), pool.pointer(buffer), length, sendAddresses + slot)
        sendCount += 1
    }

    /// Copies `bytes` into a pool buffer and queues it. For control-rate packets (STUN, DTLS).
    public func queueSend(copying bytes: UnsafeRawBufferPointer, path: MediaPath) {
        guard bytes.count <= PacketBufferPool.bufferSize, let buffer = pool.take() else {
            datagramsDropped.add(1, ordering: .relaxed)
            return
        }
        pool.pointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        queueSend(buffer: buffer, length: bytes.count, path: path)
    }

    func flushSends() {
        // One sendmmsg per run of datagrams leaving by the same socket (a server has one).
        var start = 0
        var sent = 0
        while start < sendCount {
            let socket = sendSockets[start]
            var end = start + 1
            while end < sendCount && sendSockets[end] == socket { end += 1 }
            var next = start
            while next < end {
                let result = Int(sluice_sendmmsg(socket, sendBatch, UInt32(next), UInt32(end - next)))
                if result <= 0 {
                    // EAGAIN or an unreachable peer: drop the rest of the run rather than stall the loop.
                    datagramsDropped.add(UInt64(end - next), ordering: .relaxed)
                    break
                }
                next += result
                sent += result
            }
            start = end
        }
        if sent > 0 { datagramsOut.add(UInt64(sent), ordering: .relaxed) }
        for i in 0..<sendCount { pool.give(sendBuffers[i]) }
        sendCount = 0
        if !tcp.flushList.isEmpty { flushTCP() }
    }
}
