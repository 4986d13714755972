import SluiceClient
import SluiceTestMedia
import SluiceRTP
import Testing
@testable import SluiceLoadTest

/// The per-player accounting `--assert-no-loss` judges: the SDK's receive stats summed into
/// `ContinuityCounts`, and `PlayerFigures.problems`.
struct ContinuityAccountingTests {
    private func stats(_ sequence: [UInt16], ssrc: UInt32 = 7) -> ReceivedStreamStats {
        var stats = ReceivedStreamStats(codec: .other)
        for seq in sequence {
            var bytes: [UInt8] = [0x80, 96, UInt8(seq >> 8), UInt8(seq & 0xFF), 0, 0, 0, 0,
                                  UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF), 1]
            bytes.withUnsafeMutableBytes { raw in
                if let packet = RTPPacket(parsing: raw) { stats.record(packet, now: 0) }
            }
        }
        return stats
    }

    private func counts(video: [UInt16], audio: [UInt16]) -> ContinuityCounts {
        ContinuityCounts(video: stats(video), audio: stats(audio, ssrc: 8), packets: UInt64(video.count + audio.count))
    }

    @Test func anUnbrokenRunHasNoProblem() {
        let c = counts(video: [100, 101, 102, 103], audio: [65534, 65535, 0, 1])
        #expect(c.packets == 8 && c.lost == 0 && c.lossFraction == 0)
        #expect(c.problems.isEmpty)
    }

    @Test(arguments: [
        ([10, 11, 13, 14], ["1 lost", "1 sequence gap"]),
        ([10, 11, 11, 12], ["1 duplicate"]),
        ([10, 12, 11, 13], ["1 sequence gap", "1 out of order"]),
        ([10, 20], ["9 lost", "1 sequence gap"]),
    ] as [([UInt16], [String])])
    func eachKindOfBreakIsNamed(video: [UInt16], problems: [String]) {
        let c = counts(video: video, audio: [1, 2, 3])
        #expect(c.problems == problems)
    }

    @Test func lossFractionIsOverWhatShouldHaveArrived() {
        // 10 and 20 arrived, 11-19 did not: 9 of 11.
        let c = ContinuityCounts(video: stats([10, 20]), audio: stats([]), packets: 2)
        #expect(abs(c.lossFraction - 9.0 / 11.0) < 1e-12)
    }

    @Test func sumsAddEveryField() {
        let a = counts(video: [1, 3], audio: [5, 5])
        let b = counts(video: [1, 2], audio: [9])
        let sum = a + b
        #expect(sum.packets == 7 && sum.lost == 1 && sum.gaps == 1 && sum.duplicates == 1)
    }

    private func player(joined: Bool, continuity: ContinuityCounts = ContinuityCounts(), error: String? = nil,
                        ended: String? = nil) -> PlayerFigures {
        PlayerFigures(index: 3, stream: "load-0", url: "ws://127.0.0.1:8080/ws", joined: joined, error: error, joinMillis: joined ? 20 : nil,
                      continuity: continuity, videoPackets: 0, audioPackets: 0, keyFrames: 0,
                      lastKeyFrameWidth: nil, lastKeyFrameHeight: nil, layerChanges: 2, layerSwitches: 1,
                      lastLayer: 1, delayP50Micros: nil, delayP99Micros: nil, ended: ended)
    }

    @Test func aPlayerThatDidNotJoinOrEndedEarlyIsAProblem() {
        #expect(player(joined: true).problems.isEmpty)
        #expect(player(joined: false, error: "no the first media packet within the join timeout").problems
                == ["did not join: no the first media packet within the join timeout"])
        #expect(player(joined: true, ended: "FAILED Failed by ICE timeout").problems
                == ["ended during the run: FAILED Failed by ICE timeout"])
        #expect(player(joined: true, continuity: counts(video: [1, 3], audio: [])).problems == ["1 lost", "1 sequence gap"])
    }

    @Test func layerSwitchesLeaveOutTheFirstChoice() {
        var events = PlayerEvents()
        #expect(events.layerSwitches == 0)
        events.layerChanges = 1
        #expect(events.layerSwitches == 0)
        events.layerChanges = 4
        #expect(events.layerSwitches == 3)
    }
}
