import Testing
@testable import SluiceMedia

private func seqs(_ decisions: [SequenceMunger.Decision]) -> [Int?] {
    decisions.map {
        if case .forward(let s, _) = $0 { return Int(s) }
        return nil
    }
}

struct SequenceMungerTests {
    /// (input sequence numbers, expected output, nil = dropped); starts at the first input.
    @Test(arguments: [
        // contiguous
        ([100, 101, 102], [1000, 1001, 1002] as [Int?]),
        // upstream loss stays a gap
        ([100, 101, 103], [1000, 1001, 1003]),
        // reordering maps consistently
        ([100, 102, 101, 103], [1000, 1002, 1001, 1003]),
        // older than the start point is dropped
        ([100, 99, 101], [1000, nil, 1001]),
        // wraparound of the source
        ([65534, 65535, 0, 1], [1000, 1001, 1002, 1003]),
        // duplicate maps to the same number
        ([100, 101, 101], [1000, 1001, 1001]),
    ] as [([UInt16], [Int?])])
    func mapsSequenceNumbers(input: [UInt16], expected: [Int?]) {
        var munger = SequenceMunger(initialSequence: 1000, initialTimestamp: 5000)
        munger.restart(atSequence: input[0], timestamp: 90_000, clockRate: 90_000, now: 0)
        let out = input.map { munger.map(sequence: $0, timestamp: 90_000, now: 0) }
        #expect(seqs(out) == expected)
    }

    @Test func outputWrapsAroundWithoutGap() {
        var munger = SequenceMunger(initialSequence: 0x7fff, initialTimestamp: 0)
        munger.restart(atSequence: 10, timestamp: 0, clockRate: 90_000, now: 0)
        var outputs: [Int?] = []
        for i in 0..<(0x8001 + 3) {
            let d = munger.map(sequence: UInt16(truncatingIfNeeded: 10 + i), timestamp: 0, now: 0)
            if i >= 0x8000 { outputs.append(seqs([d])[0]) }
        }
        #expect(outputs == [65535, 0, 1, 2])
    }

    @Test func newSourceContinuesAfterLastSent() {
        var munger = SequenceMunger(initialSequence: 500, initialTimestamp: 1_000)
        munger.restart(atSequence: 40_000, timestamp: 3_000_000, clockRate: 90_000, now: 1_000_000)
        _ = munger.map(sequence: 40_000, timestamp: 3_000_000, now: 1_000_000)
        let last = munger.map(sequence: 40_001, timestamp: 3_003_000, now: 1_033_000)
        #expect(last == .forward(sequenceNumber: 501, timestamp: 4_000))
        // A new publisher with unrelated numbers, 100 ms later.
        munger.restart(atSequence: 7, timestamp: 123, clockRate: 90_000, now: 1_133_000)
        let first = munger.map(sequence: 7, timestamp: 123, now: 1_133_000)
        #expect(first == .forward(sequenceNumber: 502, timestamp: 4_000 + 9_000))
        // Packets of the old numbering that arrive late are not mistaken for new ones.
        #expect(munger.map(sequence: 6, timestamp: 100, now: 1_134_000) == .drop)
    }

    @Test func insertedPacketsShiftTheSourceWithoutGapOrCollision() {
        var munger = SequenceMunger(initialSequence: 100, initialTimestamp: 0)
        #expect(munger.insert() == nil)  // nothing sent yet
        munger.restart(atSequence: 7, timestamp: 900, clockRate: 90_000, now: 0)
        #expect(munger.map(sequence: 7, timestamp: 900, now: 0) == .forward(sequenceNumber: 100, timestamp: 0))
        let padding = munger.insert()
        #expect(padding?.sequenceNumber == 101 && padding?.timestamp == 0)
        #expect(munger.insert()?.sequenceNumber == 102)
        #expect(munger.map(sequence: 8, timestamp: 3900, now: 0) == .forward(sequenceNumber: 103, timestamp: 3000))
    }

    /// Dropping a temporal layer: skipped packets leave no gap; an out-of-order skip does.
    @Test func skippedPacketsLeaveNoGap() {
        var munger = SequenceMunger(initialSequence: 10, initialTimestamp: 0)
        munger.restart(atSequence: 100, timestamp: 0, clockRate: 90_000, now: 0)
        #expect(seqs([munger.map(sequence: 100, timestamp: 0, now: 0)]) == [10])
        munger.skip(sequence: 101)
        munger.skip(sequence: 102)
        #expect(seqs([munger.map(sequence: 103, timestamp: 0, now: 0)]) == [11])
        #expect(seqs([munger.map(sequence: 105, timestamp: 0, now: 0)]) == [13])  // 104 lost upstream
        munger.skip(sequence: 104)                                                  // arrives late: stays a gap
        #expect(seqs([munger.map(sequence: 106, timestamp: 0, now: 0)]) == [14])
    }

    /// A layer switch with sender-report timing: the step is the media time between the two
    /// packets, whatever their arrival times say.
    @Test func switchUsesTheGivenTimestampStep() {
        var munger = SequenceMunger(initialSequence: 50, initialTimestamp: 10_000)
        munger.restart(atSequence: 1, timestamp: 500, clockRate: 90_000, now: 1_000_000)
        _ = munger.map(sequence: 1, timestamp: 500, now: 1_000_000)
        munger.restart(atSequence: 900, timestamp: 77_777, clockRate: 90_000, now: 1_500_000, timestampStep: 3_000)
        #expect(munger.map(sequence: 900, timestamp: 77_777, now: 1_500_000) == .forward(sequenceNumber: 51, timestamp: 13_000))
    }

    @Test func notStartedDrops() {
        var munger = SequenceMunger(initialSequence: 1, initialTimestamp: 0)
        #expect(munger.map(sequence: 5, timestamp: 0, now: 0) == .drop)
    }
}
