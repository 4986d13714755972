import SluiceVocabulary
import SluiceWire

/// The transport's send side (worker thread): RTP and RTCP protected by SRTP, and DTLS
/// records (the data channel's SCTP packets, the handshake's flights), queued on the worker
/// for the selected path.
extension WebRTCTransport {
    /// Encrypts pool buffer `buffer` in place and queues it. Takes ownership of the buffer.
    @inline(__always)
    public func sendRTP(buffer: Int32, length: Int) {
        guard state == .connected, let srtpOutReference, let selected else {
            worker.pool.give(buffer)
            return
        }
        var protectedLength = length
        let packet = worker.pool.pointer(buffer)
        guard srtpOutReference._withUnsafeGuaranteedRef({
            $0.protectRTP(packet, length: &protectedLength, capacity: PacketBufferPool.bufferSize)
        }) else {
            srtpErrors += 1
            worker.pool.give(buffer)
            return
        }
        worker.queueSend(buffer: buffer, length: protectedLength, path: selected)
    }

    /// Copies an RTCP compound packet into a pool buffer, encrypts and queues it.
    public func sendRTCP(_ bytes: UnsafeRawBufferPointer) {
        guard state == .connected, let srtpOut, let selected,
              bytes.count + 64 <= PacketBufferPool.bufferSize, let buffer = worker.pool.take() else { return }
        let pointer = worker.pool.pointer(buffer)
        pointer.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        var length = bytes.count
        guard srtpOut.protectRTCP(pointer, length: &length, capacity: PacketBufferPool.bufferSize) else {
            srtpErrors += 1
            worker.pool.give(buffer)
            return
        }
        worker.queueSend(buffer: buffer, length: length, path: selected)
    }

    /// Seals SCTP packets in DTLS records and queues them, one record per datagram (worker
    /// thread): a peer may read only the first record of a datagram (aiortc does), and
    /// browsers send one SCTP packet per datagram too. Dropped before DTLS is up or after the
    /// transport ended; SCTP retransmits what it needs.
    public func sendApplicationData(_ packets: [[UInt8]]) {
        guard state == .connected else { return }
        for packet in packets {
            if packet.withUnsafeBytes({ dtls.sendApplicationData($0) }) {
                flushDTLS()
            } else {
                applicationDataWriteFailures += 1
            }
        }
    }

    func flushDTLS() {
        guard let selected else { return }
        dtls.drainOutgoing { datagram in
            worker.queueSend(copying: datagram, path: selected)
        }
    }
}
