import SluiceRTP
import SluiceWire

/// Builds transport-wide congestion control feedback (draft-holmer-rmcat-transport-wide-cc)
/// for a publisher: when each packet arrived, by its transport-wide sequence number. The
/// publisher's own bandwidth estimator runs on this; without it a browser never raises its
/// send rate (and so never sends its upper simulcast layers).
///
/// Recording is on the packet path and writes into a fixed ring; feedback is built about 20
/// times a second, off the packet path.
struct TransportFeedbackGenerator {
    static let capacity = 4096
    /// Feedback interval.
    static let intervalMicros: UInt64 = 50_000

    private var sequences = [Int64](repeating: 0, count: capacity)
    private var arrivals = [UInt64](repeating: 0, count: capacity)
    private var count = 0
    private var unwrapper = SequenceUnwrapper()
    /// First sequence number not yet reported.
    private var nextToReport: Int64 = -1
    private var feedbackCount: UInt8 = 0
    private var lastFeedback: UInt64 = 0

    @inline(__always)
    mutating func record(sequence: UInt16, arrival: UInt64) {
        guard count < Self.capacity else { return }
        sequences[count] = unwrapper.unwrap(sequence)
        arrivals[count] = arrival
        count += 1
    }

    /// The feedback due at `now`, or nil. Packets that arrive after a later one was reported
    /// are not reported again (the sender counts them as lost, as RFC 8888 senders do).
    mutating func feedback(now: UInt64, senderSSRC: UInt32, mediaSSRC: UInt32) -> RTCPTransportWideCC? {
        guard count > 0, now - lastFeedback >= Self.intervalMicros else { return nil }
        lastFeedback = now
        var received: [Int64: UInt64] = [:]
        var lowest = Int64.max, highest = Int64.min
        for i in 0..<count where sequences[i] >= nextToReport {
            received[sequences[i]] = arrivals[i]
            lowest = min(lowest, sequences[i])
            highest = max(highest, sequences[i])
        }
        count = 0
        guard lowest <= highest else { return nil }
        let base = nextToReport >= 0 ? nextToReport : lowest
        // Keep one packet within 16 bits of sequence space.
        let first = max(base, highest - 0xfff0)
        nextToReport = highest + 1
        guard let firstArrival = (first...highest).lazy.compactMap({ received[$0] }).first else { return nil }
        let referenceTime = Int32(truncatingIfNeeded: Int64(firstArrival) / 64_000)
        var previous = Int64(referenceTime) * 64_000
        var deltas: [Int16?] = []
        deltas.reserveCapacity(Int(highest - first + 1))
        for sequence in first...highest {
            guard let arrival = received[sequence] else {
                deltas.append(nil)
                continue
            }
            let ticks = (Int64(arrival) - previous) / 250
            deltas.append(Int16(clamping: ticks))
            previous += Int64(Int16(clamping: ticks)) * 250
        }
        defer { feedbackCount &+= 1 }
        return RTCPTransportWideCC(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
                                   baseSequenceNumber: UInt16(truncatingIfNeeded: first),
                                   referenceTime: referenceTime, feedbackPacketCount: feedbackCount,
                                   arrivals: deltas)
    }
}
