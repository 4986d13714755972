import SluiceTransport

/// A relaying worker's view of one layer's retransmission buffer: the last packets it was
/// handed, by sequence number, as references into the home worker's buffers (each counted in
/// the home's `SharedPackets`), not copies. So a player's NACK on this worker is answered
/// from the one stored copy of the packet (docs/design.md hot-path rule 4).
struct RelayedRetransmissions {
    static let slots = RetransmissionBuffer.slots

    private var buffers = [Int32](repeating: -1, count: slots)
    private var lengths = [UInt16](repeating: 0, count: slots)
    private var sequences = [UInt16](repeating: 0, count: slots)

    /// Keeps `buffer` (a reference the caller hands over) and lets go of the one it replaces.
    @inline(__always)
    mutating func keep(_ buffer: Int32, length: UInt16, sequence: UInt16, home: SharedPackets) {
        let slot = Int(sequence) & (Self.slots - 1)
        let previous = buffers[slot]
        if previous >= 0 { home.releaseRemote(previous) }
        buffers[slot] = buffer
        lengths[slot] = length
        sequences[slot] = sequence
    }

    @inline(__always)
    func packet(sequence: UInt16, home: SharedPackets) -> UnsafeMutableRawBufferPointer? {
        let slot = Int(sequence) & (Self.slots - 1)
        guard buffers[slot] >= 0, sequences[slot] == sequence else { return nil }
        return home.bytes(buffers[slot], count: Int(lengths[slot]))
    }

    mutating func releaseAll(home: SharedPackets) {
        for i in buffers.indices where buffers[i] >= 0 {
            home.releaseRemote(buffers[i])
            buffers[i] = -1
        }
    }
}
