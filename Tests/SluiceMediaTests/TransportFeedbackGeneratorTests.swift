import SluiceRTP
import SluiceWire
import Testing
@testable import SluiceMedia

struct TransportFeedbackGeneratorTests {
    /// Arrival times come back from the feedback to within one 250 µs tick, losses as
    /// "not received", across a sequence-number wrap.
    @Test func reportsArrivalsAndLosses() throws {
        var generator = TransportFeedbackGenerator()
        let start: UInt64 = 10_000_000
        // 65533, 65534, (65535 lost), 0, 1 arriving 5 ms apart, then 2 after a 100 ms gap.
        let arrivals: [(UInt16, UInt64)] = [(65533, start), (65534, start + 5_000), (0, start + 15_000),
                                            (1, start + 20_000), (2, start + 120_000)]
        for (sequence, time) in arrivals { generator.record(sequence: sequence, arrival: time) }
        let built = generator.feedback(now: start + 200_000, senderSSRC: 1, mediaSSRC: 2)
        let feedback = try #require(built)
        #expect(feedback.baseSequenceNumber == 65533)
        #expect(feedback.packetStatusCount == 6)

        var storage = [UInt8](repeating: 0, count: 256)
        let bytes = storage.withUnsafeMutableBytes { raw -> [UInt8] in
            var writer = ByteWriter(raw)
            feedback.write(into: &writer)
            return Array(raw[0..<writer.offset])
        }
        let maybeParsed = bytes.withUnsafeBytes { raw in RTCPTransportWideCC(parsing: raw) }
        let parsed = try #require(maybeParsed)
        var times: [UInt16: Int64] = [:]
        var clock = Int64(parsed.referenceTime) * 64_000
        var lost: [UInt16] = []
        parsed.forEachPacket { result in
            if result.status == .notReceived {
                lost.append(result.sequenceNumber)
            } else {
                clock += Int64(result.delta) * 250
                times[result.sequenceNumber] = clock
            }
        }
        #expect(lost == [65535])
        for (sequence, time) in arrivals {
            let reported = try #require(times[sequence])
            #expect(abs(reported - Int64(time)) < 250 * 2, "seq \(sequence)")
        }
        // Nothing new: no feedback.
        let none = generator.feedback(now: start + 400_000, senderSSRC: 1, mediaSSRC: 2)
        #expect(none == nil)
    }

    @Test func continuesFromTheLastReport() throws {
        var generator = TransportFeedbackGenerator()
        generator.record(sequence: 10, arrival: 1_000_000)
        _ = generator.feedback(now: 1_100_000, senderSSRC: 1, mediaSSRC: 2)
        generator.record(sequence: 12, arrival: 1_150_000)
        let built = generator.feedback(now: 1_200_000, senderSSRC: 1, mediaSSRC: 2)
        let next = try #require(built)
        #expect(next.baseSequenceNumber == 11)
        #expect(next.packetStatusCount == 2)
        #expect(next.feedbackPacketCount == 1)
    }
}
