/// When each packet went to a player, and how big it was, by its transport-wide sequence
/// number: what the player's transport-cc feedback is matched against.
///
/// A fixed ring written on the packet path (no allocation); at a few hundred packets a second
/// it holds several seconds, far more than the feedback interval (50–100 ms).
struct SendHistory {
    static let capacity = 4096
    private static let mask = capacity - 1

    private var sequences = [UInt16](repeating: 0, count: capacity)
    private var sendMicros = [UInt64](repeating: 0, count: capacity)
    private var sizes = [UInt16](repeating: 0, count: capacity)

    @inline(__always)
    mutating func record(sequence: UInt16, size: Int, now: UInt64) {
        let slot = Int(sequence) & Self.mask
        sequences[slot] = sequence
        sendMicros[slot] = now
        sizes[slot] = UInt16(clamping: size)
    }

    /// The send time and size of `sequence`, unless its slot was overwritten or never written.
    func lookup(_ sequence: UInt16) -> (sendMicros: UInt64, size: Int)? {
        let slot = Int(sequence) & Self.mask
        guard sequences[slot] == sequence, sendMicros[slot] != 0 else { return nil }
        return (sendMicros[slot], Int(sizes[slot]))
    }
}
