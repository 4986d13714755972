import Testing
@testable import SluiceTransport

/// The per-SSRC state of Sluice's SRTP: index estimation across the wrap (RFC 3711 3.3.1),
/// the replay window, and the stream table's growth and eviction.
@Suite struct SRTPStreamStateTests {
    /// (highest index so far, sequence number, expected index).
    static let estimates: [(UInt64, UInt16, UInt64)] = [
        (0, 0, 0),
        (100, 101, 101),
        (100, 65_000, 65_000),  // highest below 2^15: ROC 0, never ROC - 1
        (30_000, 100, 100),
        (65_500, 3, 65_536 + 3),  // wrapped
        (65_536 + 3, 65_530, 65_530),  // late, from before the wrap
        (65_536 + 40_000, 10, 2 * 65_536 + 10),
        (5 * 65_536 + 100, 65_000, 4 * 65_536 + 65_000),
        (5 * 65_536 + 40_000, 7_232, 5 * 65_536 + 7_232),  // 2^15 behind: still this cycle
        (5 * 65_536 + 40_000, 7_231, 6 * 65_536 + 7_231),  // more than 2^15 behind: the next cycle
        (0xFFFF_FFFF << 16 | 0xFFF0, 5, 5),  // ROC + 1 wraps at 2^32, as libsrtp's does
    ]

    @Test(arguments: estimates)
    func indexEstimate(highest: UInt64, sequence: UInt16, expected: UInt64) {
        #expect(SRTPIndexTracker.estimate(sequence: sequence, highest: highest) == expected)
    }

    @Test func replayWindow() {
        let window = SRTPReplayWindow(words: .allocate(capacity: SRTPReplayWindow.wordCount))
        defer { window.words.deallocate() }
        var highest: UInt64 = 0
        window.start(at: 5000, highest: &highest)
        #expect(window.check(5000, highest: highest) == .replay)
        #expect(window.check(5001, highest: highest) == .none)
        #expect(window.check(4999, highest: highest) == .none)
        #expect(window.check(5000 - 1023, highest: highest) == .none)
        #expect(window.check(5000 - 1024, highest: highest) == .replayTooOld)
        window.accept(4999, highest: &highest)
        #expect(highest == 5000 && window.check(4999, highest: highest) == .replay)
        // Slides by a word and a bit, by less than a word, by exactly a word: what was accepted
        // stays marked while inside the window, what was not stays open.
        for step: UInt64 in [65, 1, 63, 64, 700] {
            window.accept(highest + step, highest: &highest)
            #expect(window.check(highest, highest: highest) == .replay)
            #expect(window.check(highest - 1, highest: highest) == (step == 1 ? .replay : .none))
            #expect(window.check(4999, highest: highest) == .replay && window.check(5001, highest: highest) == .none)
        }
        window.accept(highest + 200, highest: &highest)
        #expect(highest - 4999 >= 1024 && window.check(4999, highest: highest) == .replayTooOld)
        let before = highest
        window.accept(highest + 1024, highest: &highest)
        #expect(window.check(before, highest: highest) == .replayTooOld)
        #expect(window.check(before + 1, highest: highest) == .none)
        #expect(window.check(highest, highest: highest) == .replay)
    }

    @Test func replayWindowMarksExactlyWhatWasAccepted() {
        let window = SRTPReplayWindow(words: .allocate(capacity: SRTPReplayWindow.wordCount))
        defer { window.words.deallocate() }
        var highest: UInt64 = 0
        window.start(at: 10_000, highest: &highest)
        var accepted: Set<UInt64> = [10_000]
        var generator = SplitMix(seed: 42)
        for _ in 0..<5000 {
            let index = highest - 900 + UInt64.random(in: 0...1000, using: &generator)
            let verdict = window.check(index, highest: highest)
            let expected: SRTPFailure = index + 1024 <= highest ? .replayTooOld : (accepted.contains(index) ? .replay : .none)
            #expect(verdict == expected)
            if verdict == .none {
                window.accept(index, highest: &highest)
                accepted.insert(index)
            }
        }
    }

    @Test func tableGrowsThenEvictsTheLeastRecentlyUsed() {
        let table = SRTPStreamTable(keepsWindows: true)
        #expect(table.capacity == SRTPStreamTable.initialCapacity)
        for ssrc in UInt32(1)...5 {
            let slot = table.insert(ssrc)
            table.stream(slot).pointee.rtpHighest = UInt64(ssrc) * 10
            table.rtpWindow(slot).words[0] = UInt64(ssrc)
        }
        #expect(table.count == 5 && table.capacity == 8)
        // What was there before the growth is still there.
        for ssrc in UInt32(1)...5 {
            let slot = table.find(ssrc)
            #expect(slot >= 0 && table.stream(slot).pointee.rtpHighest == UInt64(ssrc) * 10)
            #expect(table.rtpWindow(slot).words[0] == UInt64(ssrc))
        }
        for ssrc in UInt32(6)...UInt32(SRTPStreamTable.maximumCapacity) { _ = table.insert(ssrc) }
        #expect(table.count == SRTPStreamTable.maximumCapacity && table.evictions == 0)
        // SSRC 1 was used most recently of the first five (by find, above): SSRC 2 is the oldest now.
        for ssrc in UInt32(3)...UInt32(SRTPStreamTable.maximumCapacity) { _ = table.find(ssrc) }
        _ = table.find(1)
        let slot = table.insert(1000)
        #expect(table.evictions == 1 && table.count == SRTPStreamTable.maximumCapacity)
        #expect(table.find(2) == -1 && table.find(1000) == slot && table.find(1) >= 0)
    }

    /// A session past the table's bound keeps working: 100 SSRCs, each protected and
    /// unprotected, then the first ones again (started afresh after eviction).
    @Test(arguments: SRTPProfile.allCases)
    func manySSRCs(profile: SRTPProfile) throws {
        let key = [UInt8](repeating: 3, count: profile.keyLength), salt = [UInt8](repeating: 4, count: profile.saltLength)
        let sender = try SRTPSession(profile: profile, key: key, salt: salt, direction: .outbound)
        let receiver = try SRTPSession(profile: profile, key: key, salt: salt, direction: .inbound)
        var generator = SplitMix(seed: 7)
        for round in 0..<2 {
            for ssrc in UInt32(1)...100 {
                let packet = SRTPTestPackets.rtp(ssrc: ssrc, sequence: UInt16(round * 10), payloadLength: 20, using: &generator)
                let protected = try #require(sender.protectedRTP(packet))
                #expect(receiver.unprotectedRTP(protected) == packet)
            }
        }
    }
}
