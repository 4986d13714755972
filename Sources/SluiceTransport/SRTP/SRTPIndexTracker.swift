/// The SRTP packet index (RFC 3711 section 3.3.1): the 32-bit rollover counter (ROC) and the
/// 16-bit sequence number as one 48-bit number, estimated from the highest index of the SSRC
/// so far. Both directions estimate: the receiver because the ROC is not on the wire, the
/// sender because a retransmission carries an older sequence number, perhaps from before a
/// wrap.
///
/// The estimate follows RFC 3711 Appendix A as libsrtp implements it, so that both back ends
/// give a packet the same index and so the same bytes: while the highest index is at most
/// 2^15, the ROC is taken as 0 (there is no ROC - 1 to guess), and the ROC + 1 guess wraps at
/// 2^32.
enum SRTPIndexTracker {
    static let half: UInt32 = 1 << 15

    /// The index of a packet with `sequence`, given the highest index seen or sent.
    @inline(__always)
    static func estimate(sequence: UInt16, highest: UInt64) -> UInt64 {
        let s = UInt32(sequence)
        guard highest > UInt64(half) else { return UInt64(s) }
        let roc = UInt32(truncatingIfNeeded: highest >> 16)
        let local = UInt32(truncatingIfNeeded: highest & 0xFFFF)
        let guessed: UInt32
        if local < half {
            // Far above the highest: a late packet from the previous cycle.
            guessed = s > local && s - local > half ? roc &- 1 : roc
        } else {
            // Far below the highest: the sequence number wrapped.
            guessed = local - half > s ? roc &+ 1 : roc
        }
        return UInt64(guessed) << 16 | UInt64(s)
    }

    @inline(__always)
    static func rolloverCounter(of index: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: index >> 16)
    }
}
