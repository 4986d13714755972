import SluiceRTP
import SluiceVocabulary
import Testing
@testable import SluiceMedia

/// The forwarder by the dependency descriptor (`Forwarder+Dependency.swift`), table-driven over
/// two spatial layers in K-SVC and in full SVC: which frames each target gets, where a switch
/// may happen, the marker on the player's top layer, and an unbroken output sequence.
struct ForwarderDependencyTests {
    private typealias DTI = DecodeTargetIndication
    private static func dtis(_ text: String) -> [DTI] {
        text.map { ["-": DTI.notPresent, "D": .discardable, "S": .switchPoint, "R": .required][$0]! }
    }

    /// Decode target 0 is S0, 1 is S1. K-SVC: the upper layer needs the lower one only in the
    /// key picture. Full SVC: in every picture.
    static func structure(full: Bool) -> DependencyStructure {
        DependencyStructure(templateIDOffset: 0, decodeTargetCount: 2, templates: [
            FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: dtis("SS")),
            FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: dtis(full ? "SR" : "S-"), frameDiffs: [2]),
            FrameDependencyTemplate(spatialID: 1, temporalID: 0, dtis: dtis("-S"), frameDiffs: [1]),
            FrameDependencyTemplate(spatialID: 1, temporalID: 0, dtis: dtis("-R"), frameDiffs: full ? [1, 2] : [2]),
        ], resolutions: [.init(width: 640, height: 360), .init(width: 1280, height: 720)])
    }

    static func targets(full: Bool) -> DependencyTargets {
        var table = DependencyTemplateTable()
        table.load(structure(full: full), tail: UnsafeRawBufferPointer(start: nil, count: 0))
        return DependencyTargets(table)
    }

    /// One picture's two frames, one packet each: (template, spatial, key picture).
    private struct Frame {
        var template: Int
        var sequence: UInt16
        var timestamp: UInt32
        var key = false
    }

    private struct Result: Equatable {
        var sequence: UInt16?
        var marker = false
        var layerSwitch: LayerSwitch?
        /// The active decode targets the descriptor goes out with (nil: as it came); checked on
        /// its own (`theDescriptorTellsThePlayersTargets`), not by ==.
        var active: UInt32?

        static func == (a: Result, b: Result) -> Bool {
            a.sequence == b.sequence && a.marker == b.marker && a.layerSwitch == b.layerSwitch
        }
    }

    private func run(_ forwarder: inout Forwarder, _ frame: Frame, full: Bool) -> Result {
        let template = Self.structure(full: full).templates[frame.template]
        var dependency = DependencyFrame()
        dependency.spatialID = UInt8(template.spatialID)
        dependency.startOfFrame = true
        dependency.endOfFrame = true
        dependency.attachesStructure = frame.key && frame.template == 0
        dependency.generation = forwarder.targets.generation
        for (target, dti) in template.dtis.enumerated() { dependency.indications |= UInt64(dti.rawValue) << UInt64(2 * target) }
        // The source marks the last frame of each picture: spatial layer 1.
        let marker: UInt8 = template.spatialID == 1 ? 0x80 : 0
        var bytes: [UInt8] = [0x80, marker | 45, UInt8(frame.sequence >> 8), UInt8(frame.sequence & 0xff),
                              UInt8(frame.timestamp >> 24), UInt8((frame.timestamp >> 16) & 0xff),
                              UInt8((frame.timestamp >> 8) & 0xff), UInt8(frame.timestamp & 0xff), 0, 0, 0, 1, 0x10, 0x20]
        return bytes.withUnsafeMutableBytes { raw in
            var item = ForwardedPacket(packet: RTPPacket(parsing: raw)!, kind: .video, layer: 0, isKeyFrame: frame.key,
                                       temporalLayer: 0, vp8: nil, clockRate: 90_000, audioLevel: nil, now: 1_000_000)
            item.dependency = dependency
            guard case .forward(let rewrite) = forwarder.decide(item, captureMicros: { _, _ in nil }) else { return Result() }
            return Result(sequence: rewrite.sequence, marker: marker != 0 || rewrite.setsMarker, layerSwitch: rewrite.layerSwitch,
                          active: rewrite.activeTargets?.mask)
        }
    }

    private func forwarder(full: Bool, spatial: Int) -> Forwarder {
        var forwarder = Forwarder(audio: nil, video: Forwarder.Track(enabled: true, initialSequence: 100, initialTimestamp: 0),
                                  rewritesVP8: false)
        forwarder.targets = Self.targets(full: full)
        forwarder.choosesSpatialLayers = true
        forwarder.targetSpatial = spatial
        forwarder.wantedTarget = forwarder.targets.target(spatialID: spatial, temporalID: 255)
        return forwarder
    }

    /// Two pictures: a key picture (templates 0, 2), then a delta picture (1, 3).
    private func pictures(from sequence: UInt16, timestamp: UInt32, key: Bool) -> [Frame] {
        [Frame(template: key ? 0 : 1, sequence: sequence, timestamp: timestamp, key: key),
         Frame(template: key ? 2 : 3, sequence: sequence &+ 1, timestamp: timestamp, key: key)]
    }

    @Test(arguments: [false, true])
    func eachTargetGetsItsFramesWithTheMarkerOnItsTop(full: Bool) {
        var low = forwarder(full: full, spatial: 0)
        var high = forwarder(full: full, spatial: 1)
        let frames = pictures(from: 10, timestamp: 3000, key: true) + pictures(from: 12, timestamp: 6000, key: false)
        let lows = frames.map { run(&low, $0, full: full) }
        let highs = frames.map { run(&high, $0, full: full) }
        // The low player: both S0 frames, each ending its picture; its sequence unbroken.
        #expect(lows == [Result(sequence: 100, marker: true, layerSwitch: LayerSwitch(from: nil, to: 0)), Result(),
                         Result(sequence: 101, marker: true), Result()])
        // The high player: the key picture whole; after it, S0 only in full SVC.
        #expect(highs[0] == Result(sequence: 100, marker: false, layerSwitch: LayerSwitch(from: nil, to: 1)))
        #expect(highs[1] == Result(sequence: 101, marker: true))
        if full {
            #expect(highs[2] == Result(sequence: 102, marker: false))
            #expect(highs[3] == Result(sequence: 103, marker: true))
        } else {
            #expect(highs[2] == Result())
            #expect(highs[3] == Result(sequence: 102, marker: true))
        }
    }

    /// Up in K-SVC waits for the next key picture; in full SVC too (no switch point between).
    @Test(arguments: [false, true])
    func upWaitsForASwitchPoint(full: Bool) {
        var player = forwarder(full: full, spatial: 0)
        for frame in pictures(from: 10, timestamp: 3000, key: true) { _ = run(&player, frame, full: full) }
        player.targetSpatial = 1
        player.wantedTarget = 1
        let delta = pictures(from: 12, timestamp: 6000, key: false).map { run(&player, $0, full: full) }
        #expect(delta == [Result(sequence: 101, marker: true), Result()])
        let key = pictures(from: 14, timestamp: 9000, key: true).map { run(&player, $0, full: full) }
        #expect(key == [Result(sequence: 102, marker: false, layerSwitch: LayerSwitch(from: 0, to: 1)),
                        Result(sequence: 103, marker: true)])
    }

    /// Down: at once (the next picture) in full SVC, whose upper target holds the lower one; at
    /// the next key picture in K-SVC, whose lower layer's delta frames the player never got.
    @Test(arguments: [false, true])
    func downIsAtOnceOnlyWhenTheTargetContainsIt(full: Bool) {
        var player = forwarder(full: full, spatial: 1)
        for frame in pictures(from: 10, timestamp: 3000, key: true) { _ = run(&player, frame, full: full) }
        player.targetSpatial = 0
        player.wantedTarget = 0
        let delta = pictures(from: 12, timestamp: 6000, key: false).map { run(&player, $0, full: full) }
        if full {
            #expect(delta == [Result(sequence: 102, marker: true, layerSwitch: LayerSwitch(from: 1, to: 0)), Result()])
        } else {
            #expect(delta == [Result(), Result(sequence: 102, marker: true)])
            let key = pictures(from: 14, timestamp: 9000, key: true).map { run(&player, $0, full: full) }
            #expect(key == [Result(sequence: 103, marker: true, layerSwitch: LayerSwitch(from: 1, to: 0)), Result()])
        }
    }

    /// Before the target is known for the structure, frames go by their layers; the first
    /// target then starts at the next picture, with no key frame needed.
    @Test func beforeTheTargetIsKnownByLayers() {
        var player = forwarder(full: false, spatial: 1)
        player.wantedTarget = -1
        let key = pictures(from: 10, timestamp: 3000, key: true).map { run(&player, $0, full: false) }
        #expect(key.map(\.sequence) == [100, 101])
        player.wantedTarget = 1
        let delta = pictures(from: 12, timestamp: 6000, key: false).map { run(&player, $0, full: false) }
        #expect(delta == [Result(), Result(sequence: 102, marker: true, layerSwitch: LayerSwitch(from: nil, to: 1))])
    }

    /// The active decode targets rewrite: a player is told its target and those it contains
    /// with each frame it gets, the structure's frame included. In full SVC the top target
    /// contains every other, so its player is told nothing (unless it was told less before,
    /// until a structure says all); in K-SVC the top player does not get the lower layer's
    /// delta frames, so it is told its own target alone.
    @Test(arguments: [false, true])
    func theDescriptorTellsThePlayersTargets(full: Bool) {
        let top: UInt32? = full ? nil : 0b10
        var low = forwarder(full: full, spatial: 0)
        var high = forwarder(full: full, spatial: 1)
        let frames = pictures(from: 10, timestamp: 3000, key: true) + pictures(from: 12, timestamp: 6000, key: false)
        #expect(frames.map { run(&low, $0, full: full).active } == [0b01, nil, 0b01, nil])
        #expect(frames.map { run(&high, $0, full: full) }.filter { $0.sequence != nil }.map(\.active)
                == (full ? [nil, nil, nil, nil] : [top, top, top]))
        // The low player moves up at the key picture.
        low.targetSpatial = 1
        low.wantedTarget = 1
        let up = pictures(from: 14, timestamp: 9000, key: true).map { run(&low, $0, full: full) }
        #expect(up.map(\.sequence) == [102, 103])
        #expect(up.map(\.active) == [top, top], "full SVC: a structure makes every target active, nothing to tell")
        let after = pictures(from: 16, timestamp: 12000, key: false).map { run(&low, $0, full: full) }
        #expect(after.filter { $0.sequence != nil }.allSatisfy { $0.active == top })
        // Down again (full SVC at once, K-SVC at the key picture): told the low target.
        high.targetSpatial = 0
        high.wantedTarget = 0
        let down = (pictures(from: 14, timestamp: 9000, key: false) + pictures(from: 16, timestamp: 12000, key: true))
            .map { run(&high, $0, full: full) }
        let switched = down.filter { $0.layerSwitch != nil }
        #expect(switched.count == 1 && switched.allSatisfy { $0.active == 0b01 })
    }

    /// Full SVC: a player on the top target that was told fewer (as after moving up a temporal
    /// layer at a delta frame's switch point; set directly here) is told "all" with each frame
    /// until a structure says it, so that a lost rewrite leaves it waiting for nothing.
    @Test func movingToTheTopIsToldUntilAStructure() {
        var player = forwarder(full: true, spatial: 1)
        let key = pictures(from: 10, timestamp: 3000, key: true).map { run(&player, $0, full: true).active }
        #expect(key == [nil, nil])
        player.toldPartialTargets = true
        let delta = pictures(from: 12, timestamp: 6000, key: false).map { run(&player, $0, full: true).active }
        #expect(delta == [0b11, 0b11])
        let next = pictures(from: 14, timestamp: 9000, key: true).map { run(&player, $0, full: true).active }
        #expect(next == [nil, nil])
    }
}
