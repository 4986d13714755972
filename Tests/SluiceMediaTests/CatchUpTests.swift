import Testing
@testable import SluiceMedia

/// Instant join's walk from a cached key frame to the live edge: the pace, the key frame at
/// once, the skip to a newer key frame, the live edge across the sequence wrap, and the
/// timestamps of cached frames by send time.
struct CatchUpTests {
    func mark(start: UInt16, timestamp: UInt32 = 1000, newest: UInt16, generation: Int = 1) -> KeyFrameMark {
        var mark = KeyFrameMark()
        for g in 0..<generation {
            mark.record(sequence: start &- UInt16(generation - 1 - g), timestamp: timestamp &+ UInt32(g), isKeyFrame: true, now: 0)
        }
        mark.record(sequence: newest, timestamp: timestamp &+ 90_000, isKeyFrame: false, now: 0)
        return mark
    }

    @Test func thePaceIsThreeTimesTheLayerCappedByTheEstimateAboveAFloor() {
        #expect(CatchUp.paceKbps(layerKbps: 1000, estimateKbps: nil) == 3000)
        #expect(CatchUp.paceKbps(layerKbps: 1000, estimateKbps: 2000) == 2000)
        #expect(CatchUp.paceKbps(layerKbps: 1000, estimateKbps: 500) == 1250)
        #expect(CatchUp.paceKbps(layerKbps: 0, estimateKbps: nil) == 3 * CatchUp.unmeasuredLayerKbps)
    }

    /// The key frame's packets go at once; then the frames after it wait until the pace has
    /// paid for the key frame, and go at the pace: 1 Mbit/s layer, 3 Mbit/s pace, 375 bytes/ms.
    @Test func theKeyFrameGoesAtOnceAndTheRestAtThePace() {
        var walk = CatchUp(layer: 0, from: mark(start: 100, newest: 400), layerKbps: 1000, estimateKbps: nil,
                           clockRate: 90_000, now: 0)
        for _ in 0..<10 {
            let goes = walk.mayGo(size: 1200, timestamp: 1000, now: 0)
            #expect(goes)
            walk.advance(size: 1200)
        }
        #expect(walk.next == 110)
        // 12,000 bytes owed: a delta packet may go only after 32 ms.
        let early = walk.mayGo(size: 1200, timestamp: 4000, now: 31_000)
        let paid = walk.mayGo(size: 1200, timestamp: 4000, now: 33_000)
        #expect(!early && paid)
        walk.advance(size: 1200)
        // Over one second the pace lets about 375,000 bytes through, never a burst of saved time.
        var sent = 0
        var now: UInt64 = 33_000
        while now < 1_033_000 {
            now += 10_000
            while walk.mayGo(size: 1200, timestamp: 4000, now: now) {
                walk.advance(size: 1200)
                sent += 1200
            }
        }
        #expect(sent > 360_000 && sent < 385_000, "\(sent) bytes in a second")
        // A pause saves at most maxSavedBytes.
        var burst = 0
        while walk.mayGo(size: 1200, timestamp: 4000, now: now + 5_000_000) {
            walk.advance(size: 1200)
            burst += 1200
        }
        #expect(Double(burst) <= CatchUp.maxSavedBytes + 1200)
    }

    @Test func reachesTheLiveEdgeAcrossTheWrap() {
        var walk = CatchUp(layer: 1, from: mark(start: 65533, newest: 1), layerKbps: 1000, estimateKbps: nil,
                           clockRate: 90_000, now: 0)
        var walked: [UInt16] = []
        while !walk.reachedLiveEdge(newestSequence: 1) {
            walked.append(walk.next)
            walk.advance(size: 0)
        }
        #expect(walked == [65533, 65534, 65535, 0, 1])
    }

    /// A newer key frame ahead of the walk ends the replay of what is older: the walk jumps.
    @Test func skipsToANewerKeyFrame() {
        var walk = CatchUp(layer: 0, from: mark(start: 100, newest: 300), layerKbps: 1000, estimateKbps: nil,
                           clockRate: 90_000, now: 0)
        let same = walk.skip(to: mark(start: 100, newest: 300))
        let newer = mark(start: 250, timestamp: 50_000, newest: 260, generation: 2)
        let jumped = walk.skip(to: newer)
        #expect(!same && jumped)
        #expect(walk.next == 250 && walk.generation == newer.generation && walk.keyFrameTimestamp == newer.timestamp)
        // Its packets go at once too.
        let keyFrameGoes = walk.mayGo(size: 1200, timestamp: newer.timestamp, now: 0)
        #expect(keyFrameGoes)
        // A key frame the walk already passed is no reason to jump back.
        var ahead = CatchUp(layer: 0, from: mark(start: 100, newest: 300), layerKbps: 1000, estimateKbps: nil,
                            clockRate: 90_000, now: 0)
        for _ in 0..<200 { ahead.advance(size: 0) }
        let back = ahead.skip(to: newer)
        #expect(!back)
    }

    /// Cached frames are stamped by when they are sent: as much media time after the first as
    /// has passed, and never at or before the last timestamp sent.
    @Test func cachedFramesAreStampedBySendTime() {
        var walk = CatchUp(layer: 0, from: mark(start: 100, newest: 300), layerKbps: 1000, estimateKbps: nil,
                           clockRate: 90_000, now: 0)
        let first = walk.startsLaterFrame(timestamp: 1000)
        #expect(!first)
        walk.firstFrameSent(out: 5_000, now: 1_000_000)
        walk.firstFrameSent(out: 9_999, now: 2_000_000)  // only the first counts
        let sameFrame = walk.startsLaterFrame(timestamp: 1000)
        let nextFrame = walk.startsLaterFrame(timestamp: 4000)
        #expect(!sameFrame && nextFrame)
        // Sent in the same instant: one tick after the last.
        let sameInstant = walk.outTimestamp(lastOut: 5_000, now: 1_000_000)
        // 100 ms later: 9,000 ticks after the first frame.
        let later = walk.outTimestamp(lastOut: 5_001, now: 1_100_000)
        let afterTheLast = walk.outTimestamp(lastOut: 20_000, now: 1_100_000)
        #expect(sameInstant == 5_001 && later == 14_000 && afterTheLast == 20_001)
    }
}
