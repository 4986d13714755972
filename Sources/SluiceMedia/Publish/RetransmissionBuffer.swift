import SluiceTransport
import SluiceWire

/// The last packets of one incoming stream, each stored once, in pool buffers, for answering
/// players' NACKs (docs/design.md hot-path rule 4). Consumers keep only the mapping from their
/// own sequence numbers to these.
struct RetransmissionBuffer {
    static let slots = 512

    private var buffers = [Int32](repeating: -1, count: slots)
    private var lengths = [Int32](repeating: 0, count: slots)
    private var sequences = [UInt16](repeating: 0, count: slots)

    /// Copies `packet` (decrypted, header included) into a pool buffer. With the pool empty
    /// the packet is simply not kept: forwarding matters more than a later retransmission.
    @inline(__always)
    mutating func store(_ packet: UnsafeRawBufferPointer, sequence: UInt16, pool: PacketBufferPool) {
        guard packet.count <= PacketBufferPool.bufferSize - 64 else { return }
        let slot = Int(sequence) & (Self.slots - 1)
        var buffer = buffers[slot]
        if buffer < 0 {
            guard let fresh = pool.take() else { return }
            buffer = fresh
            buffers[slot] = fresh
        }
        pool.pointer(buffer).copyMemory(from: packet.baseAddress!, byteCount: packet.count)
        lengths[slot] = Int32(packet.count)
        sequences[slot] = sequence
    }

    /// The stored packet with this sequence number, if still held.
    @inline(__always)
    func packet(sequence: UInt16, pool: PacketBufferPool) -> UnsafeMutableRawBufferPointer? {
        let slot = Int(sequence) & (Self.slots - 1)
        guard buffers[slot] >= 0, sequences[slot] == sequence, lengths[slot] > 0 else { return nil }
        return UnsafeMutableRawBufferPointer(start: pool.pointer(buffers[slot]), count: Int(lengths[slot]))
    }

    /// Whether this packet arrived already (and is still held).
    @inline(__always)
    func holds(sequence: UInt16) -> Bool {
        let slot = Int(sequence) & (Self.slots - 1)
        return buffers[slot] >= 0 && sequences[slot] == sequence && lengths[slot] > 0
    }

    /// Gives every buffer back (the producer is going away).
    mutating func release(to pool: PacketBufferPool) {
        for i in buffers.indices where buffers[i] >= 0 {
            pool.give(buffers[i])
            buffers[i] = -1
        }
    }
}
