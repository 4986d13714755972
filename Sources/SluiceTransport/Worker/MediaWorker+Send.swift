import CShims
import Glibc
import SluiceWire

/// The worker's send queue: what transports send during a loop turn waits here, and goes out
/// at the end of the receive batch in one `sendmmsg` per socket (ICE-TCP: `flushTCP`).
extension MediaWorker {
    /// Whether the UDP send batch goes out as UDP GSO messages (`rtc.gso`): on unless set off
    /// or the kernel refused it. Set before `start`.
    public var segmentation: Bool {
        get { sluice_mmsg_segmentation(sendBatch) != 0 }
        set { sluice_mmsg_set_segmentation(sendBatch, newValue ? 1 : 0) }
    }

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

    /// Writes a line when the kernel refused UDP GSO messages since the last check (they went
    /// out one datagram at a time, so nothing was lost). Called once a second.
    func reportRefusedSegmentation(now: UInt64) {
        let refused = UInt64(sluice_mmsg_segmentation_refused(sendBatch))
        guard refused > segmentationRefusalsReported else { return }
        let count = refused - segmentationRefusalsReported
        segmentationRefusalsReported = refused
        writeLog("the kernel refused \(count) UDP GSO message(s); their datagrams went one by one"
                 + (segmentation ? " (a path MTU below the segment size)" : "; GSO is off for this worker"), now: now)
    }

    func flushSends() {
        // One sendmmsg per run of datagrams leaving by the same socket (a server has one), in
        // which datagrams to one address go together as UDP GSO messages (segmented_send.c).
        var start = 0
        var sent = 0
        var messages = 0
        while start < sendCount {
            let socket = sendSockets[start]
            var end = start + 1
            while end < sendCount && sendSockets[end] == socket { end += 1 }
            var dropped: UInt32 = 0
            var runMessages: UInt32 = 0
            sent += Int(sluice_sendmmsg_segmented(socket, sendBatch, UInt32(start), UInt32(end - start),
                                                  &dropped, &runMessages))
            messages += Int(runMessages)
            if dropped > 0 { datagramsDropped.add(UInt64(dropped), ordering: .relaxed) }
            start = end
        }
        if sent > 0 {
            datagramsOut.add(UInt64(sent), ordering: .relaxed)
            sendMessages.add(UInt64(messages), ordering: .relaxed)
        }
        for i in 0..<sendCount { pool.give(sendBuffers[i]) }
        sendCount = 0
        if !tcp.flushList.isEmpty { flushTCP() }
    }
}
