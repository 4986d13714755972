import SluiceClient
import SluiceTestMedia
import SluiceRTP
import Testing

struct ReceivedStreamStatsTests {
    /// Feeds RTP packets with these sequence numbers (and SSRCs) to fresh stats.
    private func record(_ sequence: [(UInt16, UInt32)]) -> ReceivedStreamStats {
        var stats = ReceivedStreamStats(codec: .other)
        for (seq, ssrc) in sequence {
            var bytes: [UInt8] = [0x80, 96, UInt8(seq >> 8), UInt8(seq & 0xFF), 0, 0, 0, 0,
                                  UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF), 1, 2]
            bytes.withUnsafeMutableBytes { raw in
                if let packet = RTPPacket(parsing: raw) { stats.record(packet, now: 0) }
            }
        }
        return stats
    }

    private func seqs(_ values: [UInt16], ssrc: UInt32 = 1) -> [(UInt16, UInt32)] { values.map { ($0, ssrc) } }

    @Test(arguments: [
        // (sequence numbers, lost, gaps, duplicates, reordered)
        ([10, 11, 12, 13], 0, 0, 0, 0),
        ([65534, 65535, 0, 1], 0, 0, 0, 0),          // wraparound
        ([10, 11, 13, 14], 1, 1, 0, 0),              // one missing
        ([10, 15], 4, 1, 0, 0),
        ([10, 11, 11, 12], 0, 0, 1, 0),              // duplicate
        ([10, 12, 11, 13], 0, 1, 0, 1),              // reordered, then repaired
        ([10, 12, 11, 11], 0, 1, 1, 1),
        ([65535, 1, 0], 0, 1, 0, 1),                 // reordered across the wrap
    ] as [([UInt16], Int64, UInt64, UInt64, UInt64)])
    func continuity(sequence: [UInt16], lost: Int64, gaps: UInt64, duplicates: UInt64, reordered: UInt64) {
        let stats = record(seqs(sequence))
        #expect(stats.packets == UInt64(sequence.count))
        #expect(stats.lost == lost)
        #expect(stats.gaps == gaps)
        #expect(stats.duplicates == duplicates)
        #expect(stats.reordered == reordered)
    }

    @Test func ssrcChangeRestartsNumberingAndKeepsEarlierLoss() {
        let stats = record(seqs([10, 12], ssrc: 1) + seqs([500, 501], ssrc: 2))
        #expect(stats.ssrcChanges == 1)
        #expect(stats.lost == 1)
        #expect(stats.ssrc == 2)
    }

    @Test func delayFromSyntheticPayloads() throws {
        var source = SyntheticVP8Source(.init(width: 160, height: 120))
        let frame = try source.nextFrame(now: 0).unwrapped()
        var stats = ReceivedStreamStats(codec: .vp8)
        var bytes = [UInt8](repeating: 0, count: 1500)
        bytes.withUnsafeMutableBytes { raw in
            let header: [UInt8] = [0x80, 96 | 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9]
            raw.copyBytes(from: header)
            let length = frame.writePacket(0, into: UnsafeMutableRawBufferPointer(rebasing: raw[12...]), sendTime: 1_000)
            if let packet = RTPPacket(parsing: UnsafeMutableRawBufferPointer(rebasing: raw[0..<(12 + length)])) {
                stats.record(packet, now: 1_600)
            }
        }
        #expect(stats.keyFrames == 1)
        #expect(stats.lastKeyFrameSize?.width == 160 && stats.lastKeyFrameSize?.height == 120)
        #expect(stats.delay.count == 1 && stats.delay.minMicros == 600)
    }

    /// What the publisher sent before the player asked to play (the key-frame cache's
    /// catch-up) is not forwarding delay.
    @Test func packetsSentBeforeThePlayRequestAddNoDelay() throws {
        var source = SyntheticVP8Source(.init(width: 160, height: 120))
        let frame = try source.nextFrame(now: 0).unwrapped()
        var stats = ReceivedStreamStats(codec: .vp8)
        stats.delayNotBefore = 5_000
        var bytes = [UInt8](repeating: 0, count: 1500)
        for (sequence, sent, now) in [(UInt8(1), UInt64(1_000), UInt64(6_000)), (2, 5_000, 6_200), (3, 5_900, 6_300)] {
            bytes.withUnsafeMutableBytes { raw in
                let header: [UInt8] = [0x80, 96, 0, sequence, 0, 0, 0, 0, 0, 0, 0, 9]
                raw.copyBytes(from: header)
                let length = frame.writePacket(0, into: UnsafeMutableRawBufferPointer(rebasing: raw[12...]), sendTime: sent)
                if let packet = RTPPacket(parsing: UnsafeMutableRawBufferPointer(rebasing: raw[0..<(12 + length)])) {
                    stats.record(packet, now: now)
                }
            }
        }
        #expect(stats.packets == 3)
        #expect(stats.delay.count == 2 && stats.delay.minMicros == 400 && stats.delay.maxMicros == 1_200)
    }
}

struct DelayHistogramTests {
    @Test func percentilesAtBucketResolution() {
        var histogram = DelayHistogram()
        #expect(histogram.percentileMicros(0.5) == nil)
        for micros in 1...100 { histogram.record(micros: UInt64(micros) * 100) }  // 100 µs ... 10 ms
        #expect(histogram.count == 100)
        #expect(histogram.minMicros == 100 && histogram.maxMicros == 10_000)
        #expect(histogram.percentileMicros(0.5) == 5_025)
        #expect(histogram.percentileMicros(0.99) == 9_925)
        #expect(histogram.percentileMicros(1) == 10_000)
        histogram.record(micros: 500_000)  // a coarse bucket: [500 ms, 510 ms)
        #expect(histogram.percentileMicros(1) == 500_000)
        histogram.record(micros: 504_000)
        #expect(histogram.percentileMicros(0.99) == 504_000)
        histogram.record(micros: 20_000_000)  // past the last bucket
        #expect(histogram.percentileMicros(1) == 20_000_000)
        #expect(histogram.overflowCount == 1)
        var merged = DelayHistogram()
        merged.merge(histogram)
        #expect(merged.count == 103 && merged.maxMicros == 20_000_000)
    }

    @Test func bucketsAreFineTo100MillisecondsThenCoarseTo10Seconds() {
        #expect(DelayHistogram.bucketIndex(micros: 0) == 0)
        #expect(DelayHistogram.bucketIndex(micros: 99_999) == 3999)
        #expect(DelayHistogram.bucketIndex(micros: 100_000) == 4000)
        #expect(DelayHistogram.bucketIndex(micros: 109_999) == 4000)
        #expect(DelayHistogram.bucketIndex(micros: 9_999_999) == 4989)
        #expect(DelayHistogram.bucketIndex(micros: 10_000_000) == 4990)
        #expect(DelayHistogram.bucketRange(3999) == (99_975, 100_000))
        #expect(DelayHistogram.bucketRange(4001) == (110_000, 120_000))
        #expect(DelayHistogram().bucketCounts.count == 4990)
    }
}
