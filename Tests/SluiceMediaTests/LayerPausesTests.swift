import Testing
@testable import SluiceMedia

/// Dynacast's pauses: a layer without a taker is left out after the grace time, a wanted one
/// comes back at once, and the lowest is never left out.
struct LayerPausesTests {
    private let grace = LayerPauses.graceMicros

    @Test func aLayerWithoutATakerIsPausedAfterTheGraceTime() {
        var pauses = LayerPauses(layerCount: 3, now: 0)
        #expect(pauses.told == 0b111)
        // One player on layer 0: nothing changes within the grace time.
        #expect(pauses.update(wanted: 0b001, lowest: 0, now: grace - 1) == nil)
        #expect(pauses.update(wanted: 0b001, lowest: 0, now: grace) == 0b001)
        #expect(pauses.update(wanted: 0b001, lowest: 0, now: grace + 1_000_000) == nil)
    }

    @Test func aWantedLayerComesBackAtOnce() {
        var pauses = LayerPauses(layerCount: 3, now: 0)
        #expect(pauses.update(wanted: 0, lowest: 0, now: grace) == 0b001)
        #expect(pauses.update(wanted: 0b100, lowest: 0, now: grace + 10) == 0b101)
        // Its taker leaves: it stays for the grace time from its last need, then goes.
        #expect(pauses.update(wanted: 0, lowest: 0, now: grace + 20) == nil)
        #expect(pauses.update(wanted: 0, lowest: 0, now: 2 * grace + 10) == 0b001)
    }

    /// The lowest layer by size is kept whatever its index; nobody playing leaves only it.
    @Test func theLowestLayerIsNeverPaused() {
        var pauses = LayerPauses(layerCount: 3, now: 0)
        #expect(pauses.update(wanted: 0, lowest: 2, now: grace) == 0b100)
    }

    /// A player switching from one layer to another wants both until the switch: neither pauses.
    @Test func aSwitchKeepsBothLayers() {
        var pauses = LayerPauses(layerCount: 3, now: 0)
        #expect(pauses.update(wanted: 0b011, lowest: 0, now: grace) == 0b011)
        #expect(pauses.update(wanted: 0b110, lowest: 0, now: grace + 100) == 0b111)
        #expect(pauses.update(wanted: 0b100, lowest: 0, now: grace + 200) == nil)
        #expect(pauses.update(wanted: 0b100, lowest: 0, now: 2 * grace + 100) == 0b101)
    }
}
