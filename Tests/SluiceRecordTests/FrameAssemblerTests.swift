import Testing
import SluiceVocabulary
@testable import SluiceRecord

@Suite struct FrameAssemblerTests {
    /// Feeds packets at their own arrival times; returns the timestamps of the frames out.
    func feed(_ assembler: inout FrameAssembler, _ packets: [RecordedPacket]) -> [AssembledFrame] {
        packets.flatMap { assembler.insert($0, now: $0.arrivalMicros) }
    }

    @Test func inOrderFramesComeOutWhenComplete() {
        var assembler = FrameAssembler(kind: .video, codec: .vp8)
        let key = vp8Frame(0, sequences: [1, 2, 3], key: true)
        #expect(feed(&assembler, Array(key.prefix(2))).isEmpty)
        let out = feed(&assembler, [key[2]])
        #expect(out.count == 1 && out[0].isKeyFrame && out[0].width == 640 && out[0].rtpTimestamp == 0)
        #expect(out[0].data.count == 12 + 2 * 2)  // descriptors (1 byte each) stripped
        #expect(!assembler.needsKeyFrame)
        #expect(feed(&assembler, vp8Frame(3000, sequences: [4, 5], key: false)).map(\.rtpTimestamp) == [3000])
    }

    @Test func videoBeforeTheFirstKeyFrameIsDropped() {
        var assembler = FrameAssembler(kind: .video, codec: .vp8)
        #expect(assembler.needsKeyFrame)
        #expect(feed(&assembler, vp8Frame(0, sequences: [1, 2], key: false)).isEmpty)
        #expect(assembler.needsKeyFrame && assembler.statistics.framesSkipped == 1)
        #expect(feed(&assembler, vp8Frame(3000, sequences: [3], key: true)).map(\.isKeyFrame) == [true])
    }

    @Test func reorderedAndDuplicatedPacketsMakeOneFrameEach() {
        var assembler = FrameAssembler(kind: .video, codec: .vp8)
        let a = vp8Frame(0, sequences: [10, 11, 12], key: true)
        let b = vp8Frame(3000, sequences: [13, 14], key: false)
        // b's packets before a's end, a duplicate of a[0], b's out of order.
        let out = feed(&assembler, [a[1], a[0], b[1], a[0], b[0], a[2], b[1]])
        #expect(out.map(\.rtpTimestamp) == [0, 3000])
        #expect(out[1].data == [0x01, 0x00, 0x00, 0xaa, 0xbb, 0xaa, 0xbb])
        #expect(assembler.statistics.packetsDropped == 2 && assembler.bufferedPacketCount == 0)
    }

    @Test func lateRepairInsideTheWaitCompletesTheFrame() {
        var assembler = FrameAssembler(kind: .video, codec: .vp8, maxWaitMicros: 200_000)
        let a = vp8Frame(0, sequences: [1, 2, 3], key: true, at: 1_000_000)
        let b = vp8Frame(3000, sequences: [4], key: false, at: 1_033_000)
        #expect(feed(&assembler, [a[0], a[2]] + b).isEmpty)  // a[1] lost, b waits behind it
        #expect(assembler.flush(now: 1_150_000).isEmpty)
        var repair = a[1]
        repair.arrivalMicros = 1_180_000  // the NACK's retransmission, 180 ms later
        let out = assembler.insert(repair, now: 1_180_000)
        #expect(out.map(\.rtpTimestamp) == [0, 3000])
        #expect(assembler.statistics.framesLost == 0 && !assembler.needsKeyFrame)
    }

    @Test func lostFrameIsGivenUpAfterTheWaitThenSkipsToTheNextKeyFrame() {
        var assembler = FrameAssembler(kind: .video, codec: .vp8, maxWaitMicros: 200_000)
        #expect(feed(&assembler, vp8Frame(0, sequences: [1], key: true, at: 0)).count == 1)
        let lost = vp8Frame(3000, sequences: [2, 3, 4], key: false, at: 33_000)
        let next = vp8Frame(6000, sequences: [5], key: false, at: 66_000)
        let key = vp8Frame(9000, sequences: [6, 7], key: true, at: 100_000)
        let after = vp8Frame(12000, sequences: [8], key: false, at: 133_000)
        #expect(feed(&assembler, [lost[0], lost[2]] + next + key + after).isEmpty)
        #expect(assembler.flush(now: 232_999).isEmpty)  // still inside the wait
        let out = assembler.flush(now: 233_000)
        // The lost frame goes, the inter frame after it is skipped, the key frame resumes.
        #expect(out.map(\.rtpTimestamp) == [9000, 12000])
        #expect(assembler.statistics.framesLost == 1 && assembler.statistics.framesSkipped == 1)
        #expect(!assembler.needsKeyFrame)
        // The repair that comes too late is dropped, not a frame.
        #expect(assembler.insert(lost[1], now: 240_000).isEmpty)
    }

    @Test func aWholeLostFrameRaisesNeedsKeyFrameUntilOneComes() {
        var assembler = FrameAssembler(kind: .video, codec: .vp8, maxWaitMicros: 200_000)
        _ = feed(&assembler, vp8Frame(0, sequences: [1], key: true, at: 0))
        // Sequence 2 (all of frame 3000) never comes; frame 6000 is complete but after a hole.
        #expect(feed(&assembler, vp8Frame(6000, sequences: [3], key: false, at: 66_000)).isEmpty)
        #expect(assembler.flush(now: 266_000).isEmpty)
        #expect(assembler.needsKeyFrame && assembler.statistics.sequenceGaps == 1)
        #expect(feed(&assembler, vp8Frame(9000, sequences: [4], key: true, at: 300_000)).map(\.rtpTimestamp) == [9000])
        #expect(!assembler.needsKeyFrame)
    }

    @Test func control_withoutTheWaitPassingNothingIsGivenUp() {
        // The same loss as above, flushed before the wait ends: the frames stay held.
        var assembler = FrameAssembler(kind: .video, codec: .vp8, maxWaitMicros: 200_000)
        _ = feed(&assembler, vp8Frame(0, sequences: [1], key: true, at: 0))
        _ = feed(&assembler, vp8Frame(6000, sequences: [3], key: false, at: 66_000))
        #expect(assembler.flush(now: 265_999).isEmpty && assembler.bufferedPacketCount == 1)
        #expect(!assembler.needsKeyFrame)
    }

    @Test func sequenceWrapsFrom65535To0() {
        var assembler = FrameAssembler(kind: .video, codec: .vp8)
        let a = vp8Frame(0, sequences: [65534, 65535, 0], key: true)
        let b = vp8Frame(3000, sequences: [1, 2], key: false)
        let out = feed(&assembler, [a[0], a[2], b[0], a[1], b[1]])
        #expect(out.map(\.rtpTimestamp) == [0, 3000])
        #expect(assembler.statistics.framesLost == 0)
    }

    @Test func timestampWrapKeepsGrowingUnwrapped() {
        var assembler = FrameAssembler(kind: .video, codec: .vp8)
        let a = vp8Frame(UInt32.max - 1499, sequences: [100], key: true)
        let b = vp8Frame(1500, sequences: [101], key: false)
        let c = vp8Frame(4500, sequences: [102], key: false)
        let out = feed(&assembler, a + c + b)  // c before b, across the wrap
        #expect(out.map(\.rtpTimestamp) == [Int64(UInt32.max) - 1499, Int64(UInt32.max) + 1 + 1500, Int64(UInt32.max) + 1 + 4500])
    }

    @Test func packetCapGivesUpTheOldestFrame() {
        var assembler = FrameAssembler(kind: .video, codec: .vp8, maxBufferedPackets: 4)
        _ = feed(&assembler, vp8Frame(0, sequences: [1], key: true))
        // A frame that never ends (no marker) and more behind it.
        let open = vp8Frame(3000, sequences: [2, 3, 4, 5], key: false).map { var p = $0; p.marker = false; return p }
        _ = feed(&assembler, open)
        #expect(assembler.bufferedPacketCount == 4)
        let out = feed(&assembler, vp8Frame(9000, sequences: [7], key: true))
        #expect(assembler.bufferedPacketCount <= 4 && assembler.statistics.framesLost == 1)
        // The key frame after it still waits for the hole (sequence 6) or the wait.
        #expect(out.isEmpty)
        #expect(assembler.flush(now: 1_000_000).map(\.rtpTimestamp) == [9000])
    }

    @Test func audioPacketsAreFramesInOrder() {
        var assembler = FrameAssembler(kind: .audio, codec: .opus, maxWaitMicros: 100_000)
        let out = feed(&assembler, [audioPacket(1, 960, at: 0), audioPacket(3, 2880, at: 40_000), audioPacket(2, 1920, at: 41_000)])
        #expect(out.map(\.rtpTimestamp) == [960, 1920, 2880])
        // A lost audio packet holds the next one for the wait, then it comes out; no key frame needed.
        #expect(assembler.insert(audioPacket(5, 4800, at: 60_000), now: 60_000).isEmpty)
        #expect(assembler.flush(now: 160_000).map(\.rtpTimestamp) == [4800])
        #expect(!assembler.needsKeyFrame)
        // A video packet on the audio assembler is dropped.
        #expect(assembler.insert(videoPacket(6, 5760, [0x10]), now: 170_000).isEmpty)
    }

    @Test func h264FramesFromFUAAndSTAPA() {
        var assembler = FrameAssembler(kind: .video, codec: .h264)
        let pps: [UInt8] = [0x68, 0xce, 0x38, 0x80]
        var stap: [UInt8] = [0x78]
        for unit in [spsNAL720x404, pps] { stap += [0, UInt8(unit.count)] + unit }
        let packets = [
            videoPacket(1, 0, stap), videoPacket(2, 0, [0x7c, 0x85, 0x01]), videoPacket(3, 0, marker: true, [0x7c, 0x45, 0x02]),
        ]
        let out = feed(&assembler, [packets[2], packets[0], packets[1]])
        #expect(out.count == 1 && out[0].isKeyFrame && out[0].width == 720)
        #expect(assembler.h264ParameterSets?.sps == spsNAL720x404 && assembler.h264ParameterSets?.pps == pps)
    }
}
