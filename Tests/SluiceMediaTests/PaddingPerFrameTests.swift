import Testing
@testable import SluiceMedia

/// Padding after a frame stops at `OutgoingTrack.maxPacketsPerTimestamp` packets of that
/// frame's timestamp (its own packets included): a probe over a source that stalled (its
/// publisher or origin died) sent seconds of padding with the last frame's timestamp, and
/// aiortc, which reassembles by timestamp in 128 packets, then decoded an empty frame and
/// decoded nothing after it (found in interop/test_cluster_play.py, a waiting player).
struct PaddingPerFrameTests {
    /// What the sender does: each forwarded packet counted, then its timestamp kept.
    func forward(_ track: inout OutgoingTrack, timestamp: UInt32, packets: Int) {
        for _ in 0..<packets {
            track.countSent(timestamp: timestamp)
            track.packets += 1
            track.lastRTPTimestamp = timestamp
        }
    }

    func slots(_ track: inout OutgoingTrack) -> Int {
        var count = 0
        while track.takePaddingSlot() { count += 1 }
        return count
    }

    @Test func paddingAfterAFrameStopsAtTheCapAndANewFrameOpensIt() {
        var track = OutgoingTrack(parameters: MediaTestSupport.videoTrack())
        #expect(slots(&track) == 0, "no padding before any video")
        forward(&track, timestamp: 1000, packets: 10)
        #expect(slots(&track) == OutgoingTrack.maxPacketsPerTimestamp - 10)
        // Control: with no new frame, nothing more (the stalled source).
        #expect(slots(&track) == 0)
        forward(&track, timestamp: 4000, packets: 1)
        #expect(slots(&track) == OutgoingTrack.maxPacketsPerTimestamp - 1)
        // A timestamp that wraps is another frame too.
        forward(&track, timestamp: 0, packets: 2)
        #expect(track.packetsAtTimestamp == 2)
        #expect(OutgoingTrack.maxPacketsPerTimestamp < 128, "below aiortc's jitter buffer")
    }
}
