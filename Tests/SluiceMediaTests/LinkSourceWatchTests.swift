import SluiceRTP
import Testing
@testable import SluiceMedia

/// The edge's watch over a relay link (docs/cluster.md, "Link messages"): the origin's state,
/// taken in order, and the silence that ends the link.
struct LinkSourceWatchTests {
    private static let second: UInt64 = 1_000_000
    private static let start: UInt64 = 1_000 * second

    private static func state(_ serial: UInt32, _ mute: RTCPLinkState.Mute) -> RTCPLinkState {
        RTCPLinkState(senderSSRC: 1, serial: serial, mute: mute,
                      layers: [.init(width: 320, height: 180, fpsCenti: 3000, active: true, bitrateKbps: 150)])
    }

    @Test func aMuteChangeIsReportedOnceAndALateStateIsIgnored() {
        var watch = LinkSourceWatch(now: Self.start)
        let r1 = watch.arrived(Self.state(0, []), now: Self.start + 1)
        #expect(r1)  // the first state
        let r2 = watch.arrived(Self.state(0, []), now: Self.start + 2)
        #expect(!r2)  // the same again
        let r3 = watch.arrived(Self.state(1, .videoByPublisher), now: Self.start + 3)
        #expect(r3)
        #expect(watch.mute == .videoByPublisher)
        // A reordered older state changes nothing.
        let r4 = watch.arrived(Self.state(0, []), now: Self.start + 4)
        #expect(!r4)
        #expect(watch.mute == .videoByPublisher)
        #expect(watch.layers.count == 1)
        // Serials wrap.
        var wrapping = LinkSourceWatch(now: Self.start)
        _ = wrapping.arrived(Self.state(UInt32.max, []), now: Self.start)
        let r5 = wrapping.arrived(Self.state(0, .audioByServer), now: Self.start + 1)
        #expect(r5)
    }

    @Test func aSecondWithoutStateEndsTheLinkOnce() {
        var watch = LinkSourceWatch(now: Self.start)
        _ = watch.arrived(Self.state(0, []), now: Self.start)
        let r6 = watch.hasGoneSilent(now: Self.start + Self.second - 1)
        #expect(!r6)
        _ = watch.arrived(Self.state(0, []), now: Self.start + Self.second / 2)
        let r7 = watch.hasGoneSilent(now: Self.start + Self.second)
        #expect(!r7)
        let r8 = watch.hasGoneSilent(now: Self.start + Self.second * 3 / 2)
        #expect(r8)
        let r9 = watch.hasGoneSilent(now: Self.start + Self.second * 5)
        #expect(!r9)
    }

    @Test func theFirstStateHasLongerToCome() {
        var watch = LinkSourceWatch(now: Self.start)
        let r10 = watch.hasGoneSilent(now: Self.start + 2 * Self.second)
        #expect(!r10)
        let r11 = watch.hasGoneSilent(now: Self.start + 3 * Self.second)
        #expect(r11)
    }
}
