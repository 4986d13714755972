import Testing
@testable import SluiceMedia

/// The key-frame cache's bounds: which key frame a layer's mark holds, and when it may still
/// start a player (3 s for a join, 1 s for a switch, and its packets to the live edge within the retransmission buffer).
struct KeyFrameMarkTests {
    @Test func marksTheFirstPacketOfTheNewestKeyFrame() {
        var mark = KeyFrameMark()
        mark.record(sequence: 10, timestamp: 900, isKeyFrame: false, now: 1)
        #expect(mark.generation == 0 && !mark.isUsable(now: 1))
        mark.record(sequence: 11, timestamp: 1000, isKeyFrame: true, now: 2)
        mark.record(sequence: 12, timestamp: 1000, isKeyFrame: true, now: 3)
        mark.record(sequence: 13, timestamp: 4000, isKeyFrame: false, now: 4)
        #expect(mark.startSequence == 11 && mark.timestamp == 1000 && mark.arrivalMicros == 2)
        #expect(mark.newestSequence == 13 && mark.generation == 1)
        // The key frame's first packet lost and repaired later: the start moves back to it.
        var repaired = KeyFrameMark()
        repaired.record(sequence: 21, timestamp: 1000, isKeyFrame: true, now: 2)
        repaired.record(sequence: 20, timestamp: 1000, isKeyFrame: true, now: 5)
        #expect(repaired.startSequence == 20 && repaired.newestSequence == 21 && repaired.generation == 1)
        // A new key frame replaces it; an older one repaired late does not.
        mark.record(sequence: 14, timestamp: 7000, isKeyFrame: true, now: 5)
        #expect(mark.startSequence == 14 && mark.generation == 2 && mark.arrivalMicros == 5)
        mark.record(sequence: 9, timestamp: 500, isKeyFrame: true, now: 6)
        #expect(mark.startSequence == 14 && mark.generation == 2 && mark.newestSequence == 14)
    }

    @Test func theLiveEdgeFollowsTheNewestAcrossTheWrap() {
        var mark = KeyFrameMark()
        mark.record(sequence: 65534, timestamp: 1, isKeyFrame: true, now: 0)
        for sequence: UInt16 in [65535, 0, 2, 1] { mark.record(sequence: sequence, timestamp: 2, isKeyFrame: false, now: 0) }
        #expect(mark.startSequence == 65534 && mark.newestSequence == 2)
        #expect(mark.isUsable(now: 0))
    }

    @Test func usableForThreeSecondsOneForASwitchAndWhileItsPacketsFitTheBuffer() {
        var mark = KeyFrameMark()
        mark.record(sequence: 65000, timestamp: 1, isKeyFrame: true, now: 1_000_000)
        #expect(mark.isUsable(now: 1_000_000 + KeyFrameMark.maxJoinAgeMicros))
        #expect(!mark.isUsable(now: 1_000_001 + KeyFrameMark.maxJoinAgeMicros))
        #expect(mark.isUsable(now: 1_000_000 + KeyFrameMark.maxSwitchAgeMicros, maxAgeMicros: KeyFrameMark.maxSwitchAgeMicros))
        #expect(!mark.isUsable(now: 1_000_001 + KeyFrameMark.maxSwitchAgeMicros, maxAgeMicros: KeyFrameMark.maxSwitchAgeMicros))
        // 448 packets from the key frame to the live edge: the buffer (512) must still hold
        // the start while the catch-up walks.
        var span = KeyFrameMark()
        span.record(sequence: 65500, timestamp: 1, isKeyFrame: true, now: 0)
        for step in 1..<KeyFrameMark.maxSpan {
            span.record(sequence: 65500 &+ UInt16(step), timestamp: 2, isKeyFrame: false, now: 0)
        }
        #expect(span.isUsable(now: 0))
        span.record(sequence: 65500 &+ UInt16(KeyFrameMark.maxSpan), timestamp: 3, isKeyFrame: false, now: 0)
        #expect(!span.isUsable(now: 0))
        #expect(KeyFrameMark.maxSpan < RetransmissionBuffer.slots)
    }

    /// A jump past the live edge (a layer a relay link stopped forwarding for a while, a burst
    /// lost) leaves a hole the walk would cross: unusable until the next key frame.
    @Test func aHoleAfterTheKeyFrameMakesItUnusableUntilTheNext() {
        var mark = KeyFrameMark()
        mark.record(sequence: 65500, timestamp: 1, isKeyFrame: true, now: 0)
        mark.record(sequence: 65500 &+ KeyFrameMark.maxJump, timestamp: 2, isKeyFrame: false, now: 0)
        #expect(mark.isUsable(now: 0))
        mark.record(sequence: 65501 &+ 2 * KeyFrameMark.maxJump, timestamp: 3, isKeyFrame: false, now: 0)
        #expect(!mark.isUsable(now: 0) && mark.broken)
        mark.record(sequence: 65502 &+ 2 * KeyFrameMark.maxJump, timestamp: 4, isKeyFrame: true, now: 0)
        #expect(mark.isUsable(now: 0) && !mark.broken)
    }
}
