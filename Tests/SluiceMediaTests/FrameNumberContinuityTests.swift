import Testing
@testable import SluiceMedia

/// A player's dependency descriptor frame numbers go on unbroken across its layer switches and
/// restarts (`FrameNumberContinuity`): a receiver drops a frame numbered below one it has.
struct FrameNumberContinuityTests {
    /// The numbers the player sees for (number, layer) frames in order.
    private func out(_ frames: [(UInt16, Int)], restartAt: Int? = nil) -> [UInt16] {
        var numbers = FrameNumberContinuity()
        return frames.enumerated().map { index, frame in
            if index == restartAt { numbers.restart() }
            return frame.0 &+ numbers.offset(for: frame.0, layer: frame.1)
        }
    }

    @Test func theFirstLayerKeepsItsNumbers() {
        #expect(out([(100, 0), (101, 0), (102, 0)]) == [100, 101, 102])
    }

    @Test func aSwitchGoesOnFromTheLastNumber() {
        // Up to a layer counting far behind, then back to one far ahead, across the wrap.
        #expect(out([(100, 0), (101, 0), (50, 2), (51, 2), (65535, 1), (0, 1), (102, 0)])
                == [100, 101, 102, 103, 104, 105, 106])
    }

    @Test func aLatePacketOfAnEarlierFrameKeepsTheCount() {
        // Frame 101 comes again (a retransmission) after 102; the switch still follows 102.
        #expect(out([(100, 0), (102, 0), (101, 0), (7, 1)]) == [100, 102, 101, 103])
    }

    @Test func aRestartOnTheSameLayerGoesOnToo() {
        // A new publisher under the name: its own count, on layer 0 again.
        #expect(out([(100, 0), (101, 0), (9000, 0), (9001, 0)], restartAt: 2) == [100, 101, 102, 103])
    }
}
