import SluiceTransport
import SluiceWire

/// The last packets of one incoming stream, each stored once, in pool buffers, for answering
/// players' NACKs (docs/design.md hot-path rule 4). Consumers keep only the mapping from their
/// own sequence numbers to these. The buffers are reference counted (`SharedPackets`): other
/// workers that relay the stream hold them too, so a buffer still held elsewhere is let go
/// rather than rewritten.
struct RetransmissionBuffer {
    static let slots = 512

    private var buffers = [Int32](repeating: -1, count: slots)
    private var lengths = [Int32](repeating: 0, count: slots)
    private var sequences = [UInt16](repeating: 0, count: slots)

    /// Copies `packet` (decrypted, header included) into a pool buffer and returns the
    /// buffer (-1 when not stored). With the pool empty the packet is simply not kept:
    /// forwarding matters more than a later retransmission.
    @inline(__always)
    mutating func store(_ packet: UnsafeRawBufferPointer, sequence: UInt16, shared: SharedPackets) -> Int32 {
        guard packet.count <= PacketBufferPool.bufferSize - 64 else { return -1 }
        let slot = Int(sequence) & (Self.slots - 1)
        var buffer = buffers[slot]
        if buffer >= 0 && !shared.isExclusive(buffer) {
            // Another worker still holds the packet this slot kept: leave it to them.
            shared.release(buffer)
            buffer = -1
            buffers[slot] = -1
        }
        if buffer < 0 {
            guard let fresh = shared.take() else {
                lengths[slot] = 0
                return -1
            }
            buffer = fresh
            buffers[slot] = fresh
        }
        shared.pool.pointer(buffer).copyMemory(from: packet.baseAddress!, byteCount: packet.count)
        lengths[slot] = Int32(packet.count)
        sequences[slot] = sequence
        return buffer
    }

    /// The stored packet with this sequence number, if still held.
    @inline(__always)
    func packet(sequence: UInt16, shared: SharedPackets) -> UnsafeMutableRawBufferPointer? {
        let slot = Int(sequence) & (Self.slots - 1)
        guard buffers[slot] >= 0, sequences[slot] == sequence, lengths[slot] > 0 else { return nil }
        return shared.bytes(buffers[slot], count: Int(lengths[slot]))
    }

    /// Whether this packet arrived already (and is still held).
    @inline(__always)
    func holds(sequence: UInt16) -> Bool {
        let slot = Int(sequence) & (Self.slots - 1)
        return buffers[slot] >= 0 && sequences[slot] == sequence && lengths[slot] > 0
    }

    /// Lets go of every buffer (the producer is going away); one that another worker still
    /// holds goes back to the pool when it lets go too.
    mutating func release(to shared: SharedPackets) {
        for i in buffers.indices where buffers[i] >= 0 {
            shared.release(buffers[i])
            buffers[i] = -1
        }
    }
}
