/// The replay list of RFC 3711 section 3.3.2 for one SSRC: a bitmap of the `width` indices
/// up to the highest accepted one, in memory the stream table owns (no allocation per packet).
/// 1024 wide, as libsrtp's was configured here: a forwarder's retransmissions arrive far out
/// of order, and a packet older than the window is refused.
///
/// The highest index lives beside the window, in the SSRC's `SRTPStream`, and is passed in.
struct SRTPReplayWindow {
    static let width: UInt64 = 1024
    static let wordCount = Int(width / 64)

    /// Bit k (bit k % 64 of word k / 64) set: index `highest - k` was accepted.
    let words: UnsafeMutablePointer<UInt64>

    /// Whether a packet with `index` may be accepted: `.none`, `.replay` or `.replayTooOld`.
    @inline(__always)
    func check(_ index: UInt64, highest: UInt64) -> SRTPFailure {
        guard index <= highest else { return .none }
        let age = highest - index
        guard age < Self.width else { return .replayTooOld }
        return words[Int(age >> 6)] & (1 << (age & 63)) == 0 ? .none : .replay
    }

    /// Records an authenticated `index` that `check` passed, moving `highest` forward when it
    /// is newer.
    @inline(__always)
    func accept(_ index: UInt64, highest: inout UInt64) {
        if index > highest {
            slide(by: index - highest)
            highest = index
            words[0] |= 1
        } else {
            let age = highest - index
            words[Int(age >> 6)] |= 1 << (age & 63)
        }
    }

    /// The first packet of an SSRC: only `index` seen.
    func start(at index: UInt64, highest: inout UInt64) {
        words.update(repeating: 0, count: Self.wordCount)
        words[0] = 1
        highest = index
    }

    /// Ages every bit by `distance`; bits past the width fall off.
    private func slide(by distance: UInt64) {
        guard distance < Self.width else {
            words.update(repeating: 0, count: Self.wordCount)
            return
        }
        let wordShift = Int(distance >> 6)
        let bitShift = distance & 63
        var i = Self.wordCount - 1
        while i >= 0 {
            let source = i - wordShift
            var value: UInt64 = 0
            if source >= 0 {
                value = words[source] << bitShift
                if bitShift != 0, source > 0 { value |= words[source - 1] >> (64 - bitShift) }
            }
            words[i] = value
            i -= 1
        }
    }
}
