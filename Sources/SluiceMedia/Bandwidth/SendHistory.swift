/// When each packet went to a player, and how big it was, by its transport-wide sequence
/// number: what the player's transport-cc feedback is matched against.
///
/// A fixed ring written on the packet path (no allocation); at a few hundred packets a second
/// it holds several seconds, far more than the feedback interval (50–100 ms).
/// A player without transport-cc gets an empty one (48 KB saved per player).
struct SendHistory {
    static let capacity = 4096
    private let mask: Int

    private var sequences: [UInt16]
    private var sendMicros: [UInt64]
    private var sizes: [UInt16]

    init(enabled: Bool = true) {
        let count = enabled ? Self.capacity : 0
        mask = count - 1
        sequences = [UInt16](repeating: 0, count: count)
        sendMicros = [UInt64](repeating: 0, count: count)
        sizes = [UInt16](repeating: 0, count: count)
    }

    @inline(__always)
    mutating func record(sequence: UInt16, size: Int, now: UInt64) {
        guard mask >= 0 else { return }
        let slot = Int(sequence) & mask
        sequences[slot] = sequence
        sendMicros[slot] = now
        sizes[slot] = UInt16(clamping: size)
    }

    /// The send time and size of `sequence`, unless its slot was overwritten or never written.
    func lookup(_ sequence: UInt16) -> (sendMicros: UInt64, size: Int)? {
        guard mask >= 0 else { return nil }
        let slot = Int(sequence) & mask
        guard sequences[slot] == sequence, sendMicros[slot] != 0 else { return nil }
        return (sendMicros[slot], Int(sizes[slot]))
    }
}
