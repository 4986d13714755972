import Testing
@testable import SluiceRTP

/// VP9 SVC read from the VP9 payload descriptor alone (draft-ietf-payload-vp9-16), in both
/// modes: the structure made from the scalability structure, and each frame's decode target
/// indications as the forwarder reads the dependency descriptor's.
struct VP9DependencyTests {
    /// A descriptor with a picture id and layer indices (TL0PICIDX in non-flexible mode, one
    /// P_DIFF in flexible mode for a predicted frame), then `ss`, then two bytes of frame.
    static func packet(predicted: Bool, flexible: Bool, sid: UInt8, tid: UInt8, switchesUp: Bool = false,
                       notUsedAbove: Bool = false, start: Bool = true, end: Bool = true, pictureID: UInt8 = 10,
                       ss: [UInt8]? = nil) -> [UInt8] {
        var flags: UInt8 = 0x80 | 0x20  // I, L
        if predicted { flags |= 0x40 }
        if flexible { flags |= 0x10 }
        if start { flags |= 0x08 }
        if end { flags |= 0x04 }
        if ss != nil { flags |= 0x02 }
        if notUsedAbove { flags |= 0x01 }
        var bytes: [UInt8] = [flags, pictureID & 0x7f, tid << 5 | (switchesUp ? 0x10 : 0) | sid << 1 | (sid > 0 ? 1 : 0)]
        if !flexible { bytes.append(3) }
        if flexible && predicted { bytes.append(1 << 1) }  // P_DIFF 1, no more
        if let ss { bytes += ss }
        return bytes + [0x82, 0x49]
    }

    /// Three spatial layers of 320x180, 640x360 and 1280x720; with `group`, libwebrtc's
    /// picture group for three temporal layers (TIDs 0, 2, 1, 2).
    static func structure(group: Bool) -> [UInt8] {
        var ss: [UInt8] = [2 << 5 | 0x10 | (group ? 0x08 : 0)]
        for (w, h) in [(320, 180), (640, 360), (1280, 720)] {
            ss += [UInt8(w >> 8), UInt8(w & 0xff), UInt8(h >> 8), UInt8(h & 0xff)]
        }
        if group {
            ss.append(4)
            for tid: UInt8 in [0, 2, 1, 2] { ss += [tid << 5 | 0x10 | 1 << 2, 1] }
        }
        return ss
    }

    final class Reader {
        var vp9 = VP9Dependency()
        var table = DependencyTemplateTable()
        var timestamp: UInt32 = 1000

        func read(_ bytes: [UInt8], timestamp: UInt32? = nil) -> DependencyFrame? {
            bytes.withUnsafeBytes { payload in
                guard let descriptor = VP9PayloadDescriptor(parsing: payload) else { return nil }
                return vp9.frame(descriptor, payload: payload, timestamp: timestamp ?? self.timestamp, table: &table)
            }
        }
    }

    /// Target `s * 3 + t` of a 3x3 structure.
    static func indication(_ frame: DependencyFrame, _ s: Int, _ t: Int) -> DecodeTargetIndication {
        frame.indication(target: s * 3 + t)
    }

    @Test func aNonFlexibleKeyPictureMakesTheStructureAndSwitchesEveryTarget() throws {
        let reader = Reader()
        let key = try #require(reader.read(Self.packet(predicted: false, flexible: false, sid: 0, tid: 0,
                                                       ss: Self.structure(group: true))))
        #expect(reader.table.isLoaded && reader.table.decodeTargetCount == 9)
        #expect(reader.table.maxSpatialID == 2 && reader.table.maxTemporalID == 2)
        #expect(reader.table.resolution(spatialID: 0)! == (320, 180))
        #expect(reader.table.resolution(spatialID: 2)! == (1280, 720))
        #expect(reader.table.layers(ofTarget: 5) == (1, 2))
        #expect(key.attachesStructure && key.startOfFrame && key.generation == reader.table.generation)
        for s in 0..<3 { for t in 0..<3 { #expect(Self.indication(key, s, t) == .switchPoint) } }
        // The key picture's upper layer: a switch point for its targets and those above.
        let upper = try #require(reader.read(Self.packet(predicted: false, flexible: false, sid: 1, tid: 0)))
        #expect(upper.spatialID == 1 && !upper.attachesStructure)
        #expect(Self.indication(upper, 0, 2) == .notPresent)
        #expect(Self.indication(upper, 1, 0) == .switchPoint && Self.indication(upper, 2, 2) == .switchPoint)
    }

    @Test func kSVCLowerLayersLeaveTheUpperTargetsBetweenKeyPictures() throws {
        let reader = Reader()
        _ = reader.read(Self.packet(predicted: false, flexible: false, sid: 0, tid: 0, ss: Self.structure(group: true)))
        // Next picture: layer 0 says layer 1 does not use it (Z), as K-SVC's do.
        let base = try #require(reader.read(Self.packet(predicted: true, flexible: false, sid: 0, tid: 2,
                                                        notUsedAbove: true), timestamp: 4000))
        #expect(Self.indication(base, 0, 2) == .required)
        #expect(Self.indication(base, 0, 1) == .notPresent, "temporal layer 2 is no part of a target of 1")
        #expect(Self.indication(base, 1, 2) == .notPresent && Self.indication(base, 2, 2) == .notPresent)
        // Full SVC (Z clear): the layers above hold it.
        let full = try #require(reader.read(Self.packet(predicted: true, flexible: false, sid: 0, tid: 1),
                                            timestamp: 7000))
        #expect(Self.indication(full, 1, 1) == .required && Self.indication(full, 2, 2) == .required)
        #expect(Self.indication(full, 2, 0) == .notPresent)
        // The structure has K-SVC's shape: a spatial layer holds no other, so going down
        // waits for a key picture; a temporal layer down is held.
        #expect(reader.table.targetsContained(in: 5) & (1 << 2) == 0)
        #expect(reader.table.targetsContained(in: 5) & (1 << 3) != 0)
    }

    @Test func aBaseFrameThatSwitchesUpIsASwitchPointForItsSpatialLayer() throws {
        let reader = Reader()
        _ = reader.read(Self.packet(predicted: false, flexible: false, sid: 0, tid: 0, ss: Self.structure(group: true)))
        let sync = try #require(reader.read(Self.packet(predicted: true, flexible: false, sid: 1, tid: 0,
                                                        switchesUp: true), timestamp: 9000))
        #expect(Self.indication(sync, 1, 0) == .switchPoint && Self.indication(sync, 1, 2) == .switchPoint)
        #expect(Self.indication(sync, 2, 2) == .required, "a layer above gets no switch from it")
        // Control: U on a frame of temporal layer 1 switches nothing.
        let upper = try #require(reader.read(Self.packet(predicted: true, flexible: false, sid: 1, tid: 1,
                                                         switchesUp: true), timestamp: 12000))
        #expect(Self.indication(upper, 1, 2) == .required)
    }

    @Test func flexibleModeLearnsTheTemporalLayersFromTheFrames() throws {
        let reader = Reader()
        let key = try #require(reader.read(Self.packet(predicted: false, flexible: true, sid: 0, tid: 0,
                                                       ss: Self.structure(group: false))))
        #expect(reader.table.decodeTargetCount == 3, "three spatial layers, one temporal layer seen")
        let first = reader.table.generation
        #expect(key.generation == first)
        let delta = try #require(reader.read(Self.packet(predicted: true, flexible: true, sid: 2, tid: 2),
                                             timestamp: 4000))
        #expect(reader.table.decodeTargetCount == 9 && reader.table.generation == first + 1)
        #expect(delta.generation == reader.table.generation)
        #expect(Self.indication(delta, 2, 2) == .required && Self.indication(delta, 2, 1) == .notPresent)
        // The same layers again load nothing.
        _ = reader.read(Self.packet(predicted: true, flexible: true, sid: 1, tid: 1), timestamp: 7000)
        #expect(reader.table.generation == first + 1)
    }

    @Test func oneLayerGivesNoFrameAndNoLayerIndicesGiveNone() throws {
        let reader = Reader()
        let single: [UInt8] = [0x8e | 0x20, 0x05, 0x00, 0x00, 0x10, 0x02, 0x80, 0x01, 0xe0, 0x82]
        #expect(reader.read(single) == nil, "one spatial and one temporal layer: nothing to choose")
        let noLayers: [UInt8] = [0x8c, 0x05, 0x82, 0x49]  // I, B, E; no L
        #expect(reader.read(noLayers) == nil)
    }

    @Test func layerSizesReadEverySpatialLayer() {
        let bytes = Self.packet(predicted: false, flexible: false, sid: 0, tid: 0, ss: Self.structure(group: true))
        let sizes = bytes.withUnsafeBytes { VP9PayloadDescriptor.layerSizes(in: $0) }
        #expect(sizes.map(\.width) == [320, 640, 1280] && sizes.map(\.height) == [180, 360, 720])
        let descriptor = bytes.withUnsafeBytes { VP9PayloadDescriptor(parsing: $0) }
        #expect(descriptor?.groupTemporalLayerCount == 3 && descriptor?.spatialLayerCount == 3)
        // Without sizes (Y clear), none.
        let bare = Self.packet(predicted: false, flexible: true, sid: 0, tid: 0, ss: [2 << 5])
        #expect(bare.withUnsafeBytes { VP9PayloadDescriptor.layerSizes(in: $0) }.isEmpty)
    }
}
