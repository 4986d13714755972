import SluiceVocabulary
import Testing
@testable import SluiceMedia

/// The worker-to-recorder hand-over: copies come out in order, intact; a full ring drops
/// (and counts) rather than waits; clock pairs travel in the same order as packets.
struct RecordingRingTests {
    @Test func packetsAndClocksComeOutInOrderAsCopies() throws {
        let ring = RecordingRing()
        var payload: [UInt8] = [1, 2, 3, 4]
        let pushed = payload.withUnsafeBytes {
            ring.push(kind: .video, payloadType: 96, sequence: 65535, timestamp: 9000, marker: true, payload: $0, now: 42)
        }
        #expect(pushed)
        payload[0] = 99  // the ring holds its own copy
        ring.pushClock(kind: .audio, ntp: 0x1_0000_0000, rtpTimestamp: 480)
        guard case .packet(let kind, let pt, let seq, let ts, let marker, let bytes, let arrival)? = ring.pop() else {
            Issue.record("no packet first")
            return
        }
        #expect(kind == .video && pt == 96 && seq == 65535 && ts == 9000 && marker && arrival == 42)
        #expect(bytes == [1, 2, 3, 4])
        guard case .clock(let clockKind, let ntp, let rtp)? = ring.pop() else {
            Issue.record("no clock second")
            return
        }
        #expect(clockKind == .audio && ntp == 0x1_0000_0000 && rtp == 480)
        #expect(ring.pop() == nil)
    }

    @Test func aFullRingDropsAndCounts() {
        let ring = RecordingRing()
        let bytes = [UInt8](repeating: 7, count: 100)
        var taken = 0
        for i in 0..<(RecordingRing.capacity + 10) {
            let ok = bytes.withUnsafeBytes {
                ring.push(kind: .audio, payloadType: 111, sequence: UInt16(i), timestamp: 0, marker: false, payload: $0, now: 0)
            }
            if ok { taken += 1 }
        }
        #expect(taken == RecordingRing.capacity)
        #expect(ring.dropped.load(ordering: .relaxed) == 10)
        // Emptied, it takes packets again.
        var popped = 0
        while ring.pop() != nil { popped += 1 }
        #expect(popped == RecordingRing.capacity)
        let again = bytes.withUnsafeBytes {
            ring.push(kind: .audio, payloadType: 111, sequence: 0, timestamp: 0, marker: false, payload: $0, now: 0)
        }
        #expect(again)
    }

    @Test func anOversizePayloadIsDroppedNotTruncated() {
        let ring = RecordingRing()
        let big = [UInt8](repeating: 1, count: RecordingRing.payloadBytes + 1)
        let ok = big.withUnsafeBytes {
            ring.push(kind: .video, payloadType: 96, sequence: 1, timestamp: 0, marker: false, payload: $0, now: 0)
        }
        #expect(!ok && ring.dropped.load(ordering: .relaxed) == 1 && ring.pop() == nil)
    }
}
