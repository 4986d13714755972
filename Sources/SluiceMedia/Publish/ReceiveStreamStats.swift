import SluiceWire

/// Reception statistics of one incoming RTP stream (RFC 3550 appendix A.3 and A.8), the
/// source of the receiver reports the server sends to a publisher.
struct ReceiveStreamStats {
    private(set) var packets: UInt64 = 0
    private(set) var bytes: UInt64 = 0
    private(set) var keyFrames: UInt64 = 0
    private var unwrapper = SequenceUnwrapper()
    private var baseSequence: Int64 = -1
    private var expectedPrior: Int64 = 0
    private var receivedPrior: UInt64 = 0
    /// Interarrival jitter in timestamp units, scaled by 16 as in RFC 3550 A.8.
    private var jitterQ4: Int64 = 0
    private var lastTransit: Int64 = 0
    private var haveTransit = false
    /// Middle 32 bits of the last sender report's NTP time, and when it arrived.
    private(set) var lastSenderReport: UInt32 = 0
    private(set) var lastSenderReportMicros: UInt64 = 0

    var highestSequence: Int64 { unwrapper.highest }

    var cumulativeLost: Int64 {
        guard baseSequence >= 0 else { return 0 }
        return max(0, (unwrapper.highest - baseSequence + 1) - Int64(packets))
    }

    func jitterMillis(clockRate: UInt32) -> Double {
        clockRate == 0 ? 0 : Double(jitterQ4 >> 4) * 1000 / Double(clockRate)
    }

    @inline(__always)
    mutating func record(sequence: UInt16, timestamp: UInt32, size: Int, clockRate: UInt32, now: UInt64, keyFrame: Bool) {
        let extended = unwrapper.unwrap(sequence)
        if baseSequence < 0 { baseSequence = extended }
        packets += 1
        bytes += UInt64(size)
        if keyFrame { keyFrames += 1 }
        let arrival = Int64(now) * Int64(clockRate) / 1_000_000
        let transit = arrival - Int64(timestamp)
        if haveTransit {
            let d = abs(transit - lastTransit)
            jitterQ4 += d - ((jitterQ4 + 8) >> 4)
        }
        lastTransit = transit
        haveTransit = true
    }

    mutating func recordSenderReport(ntp: UInt64, now: UInt64) {
        lastSenderReport = UInt32(truncatingIfNeeded: ntp >> 16)
        lastSenderReportMicros = now
    }

    /// Fraction lost since the previous call (8-bit fixed point) and the cumulative count.
    mutating func reportInterval() -> (fractionLost: UInt8, cumulativeLost: Int64) {
        guard baseSequence >= 0 else { return (0, 0) }
        let expected = unwrapper.highest - baseSequence + 1
        let expectedInterval = expected - expectedPrior
        let receivedInterval = Int64(packets) - Int64(receivedPrior)
        expectedPrior = expected
        receivedPrior = packets
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 = (expectedInterval <= 0 || lostInterval <= 0)
            ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        return (fraction, cumulativeLost)
    }

    /// RFC 3550 DLSR: delay since the last SR in 1/65536 s.
    func delaySinceLastSenderReport(now: UInt64) -> UInt32 {
        guard lastSenderReportMicros > 0, now >= lastSenderReportMicros else { return 0 }
        return UInt32(truncatingIfNeeded: (now - lastSenderReportMicros) * 65536 / 1_000_000)
    }

    var jitter: UInt32 { UInt32(truncatingIfNeeded: max(0, jitterQ4 >> 4)) }
}
