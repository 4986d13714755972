import Testing
@testable import SluiceRTP

/// The Dependency Descriptor (AV1 RTP specification, appendix A): a vector worked out bit by
/// bit from the syntax, the L1T3 structure as libwebrtc sends it, round trips through the
/// writer (custom fields, chains, resolutions, the active decode targets a forwarder sets),
/// and what is refused.
struct DependencyDescriptorTests {
    private typealias DTI = DecodeTargetIndication

    private static func dtis(_ text: String) -> [DTI] {
        text.map { ["-": DTI.notPresent, "D": .discardable, "S": .switchPoint, "R": .required][$0]! }
    }

    /// L1T3: three decode targets (T0, T0+T1, all), one chain; a key frame template, then
    /// the repeating T0, T1, T2, T2 (the templates libwebrtc's L1T3 structure sends).
    static let l1t3 = DependencyStructure(
        templateIDOffset: 0, decodeTargetCount: 3,
        templates: [
            FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: dtis("SSS"), chainDiffs: [0]),
            FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: dtis("SSS"), frameDiffs: [4], chainDiffs: [4]),
            FrameDependencyTemplate(spatialID: 0, temporalID: 1, dtis: dtis("-DS"), frameDiffs: [2], chainDiffs: [2]),
            FrameDependencyTemplate(spatialID: 0, temporalID: 2, dtis: dtis("--D"), frameDiffs: [1], chainDiffs: [1]),
            FrameDependencyTemplate(spatialID: 0, temporalID: 2, dtis: dtis("--D"), frameDiffs: [1], chainDiffs: [3]),
        ],
        chainCount: 1, decodeTargetProtectedBy: [0, 0, 0])

    /// Two spatial layers (L2T1), two chains, resolutions, and a template id offset.
    static let l2t1 = DependencyStructure(
        templateIDOffset: 60, decodeTargetCount: 2,
        templates: [
            FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: dtis("SS"), chainDiffs: [0, 0]),
            FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: dtis("SS"), frameDiffs: [2], chainDiffs: [2, 1]),
            FrameDependencyTemplate(spatialID: 1, temporalID: 0, dtis: dtis("-S"), frameDiffs: [1], chainDiffs: [1, 1]),
            FrameDependencyTemplate(spatialID: 1, temporalID: 0, dtis: dtis("-R"), frameDiffs: [1, 2], chainDiffs: [1, 2]),
        ],
        chainCount: 2, decodeTargetProtectedBy: [0, 1],
        resolutions: [.init(width: 640, height: 360), .init(width: 1280, height: 720)])

    private func parse(_ bytes: [UInt8], latest: DependencyStructure? = nil) throws(DependencyDescriptorError) -> DependencyDescriptor {
        var result: Result<DependencyDescriptor, DependencyDescriptorError> = .failure(.tooShort)
        bytes.withUnsafeBytes { raw in
            do throws(DependencyDescriptorError) {
                result = .success(try DependencyDescriptor(parsing: raw, latest: latest))
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    private func written(_ descriptor: DependencyDescriptor, latest: DependencyStructure? = nil) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0xff, count: 256)
        let count = buffer.withUnsafeMutableBytes { descriptor.write(into: $0, latest: latest) }
        return count.map { Array(buffer[..<$0]) }
    }

    /// Worked out from the syntax: a key frame's only packet (start and end, template 0,
    /// frame 1) carrying a structure of one decode target and one template (S0T0, `S`), no
    /// frame differences, no chains (ns(2) = 0: one bit), no resolutions.
    /// Bits after the 24 mandatory ones: 10000 (structure present), 000000 (offset), 00000
    /// (one target), 11 (last template), 10 (S), 0 (no fdiff), 0 (no chain), 0 (no
    /// resolutions), then one bit of padding.
    @Test func aStructureWorkedOutBitByBit() throws {
        let bytes: [UInt8] = [0xc0, 0x00, 0x01, 0x80, 0x00, 0xe0]
        let descriptor = try parse(bytes)
        #expect(descriptor.startOfFrame && descriptor.endOfFrame)
        #expect(descriptor.templateID == 0 && descriptor.frameNumber == 1)
        let structure = try #require(descriptor.structure)
        #expect(structure == DependencyStructure(templateIDOffset: 0, decodeTargetCount: 1, templates: [
            FrameDependencyTemplate(spatialID: 0, temporalID: 0, dtis: [.switchPoint])]))
        #expect(descriptor.activeDecodeTargets == 1)  // a structure makes every target active
        #expect(descriptor.dtis == [.switchPoint] && descriptor.frameDiffs.isEmpty)
        #expect(written(descriptor) == bytes)
    }

    /// Three bytes: the mandatory fields alone, read against the stream's structure.
    @Test func theMandatoryFieldsAlone() throws {
        let descriptor = try parse([0x82, 0x00, 0x2a], latest: Self.l1t3)  // start, template 2, frame 42
        #expect(descriptor.startOfFrame && !descriptor.endOfFrame)
        #expect(descriptor.templateID == 2 && descriptor.frameNumber == 42)
        #expect(descriptor.structure == nil && descriptor.activeDecodeTargets == nil)
        #expect(descriptor.spatialID == 0 && descriptor.temporalID == 1)
        #expect(descriptor.dtis == Self.dtis("-DS") && descriptor.frameDiffs == [2] && descriptor.chainDiffs == [2])
        #expect(written(descriptor, latest: Self.l1t3) == [0x82, 0x00, 0x2a])
    }

    @Test(arguments: [DependencyDescriptorTests.l1t3, DependencyDescriptorTests.l2t1])
    func aStructureSurvivesItsBits(_ structure: DependencyStructure) throws {
        #expect(structure.isWritable)
        let first = structure.templates[0]
        let key = DependencyDescriptor(startOfFrame: true, endOfFrame: false, templateID: structure.templateIDOffset,
                                       frameNumber: 65535, structure: structure, frame: first)
        let bytes = try #require(written(key))
        var expected = key
        expected.activeDecodeTargets = UInt32((1 << structure.decodeTargetCount) - 1)
        #expect(try parse(bytes) == expected)
        // Each template by its id, against the structure, in three bytes.
        for (index, template) in structure.templates.enumerated() {
            let id = (structure.templateIDOffset + index) % 64
            let frame = DependencyDescriptor(startOfFrame: false, endOfFrame: true, templateID: id, frameNumber: 7,
                                             frame: template)
            let short = try #require(written(frame, latest: structure))
            #expect(short.count == 3)
            #expect(try parse(short, latest: structure) == frame)
        }
    }

    @Test func layersOfEachDecodeTarget() {
        #expect(Self.l1t3.decodeTargetLayers.map(\.temporalID) == [0, 1, 2])
        #expect(Self.l2t1.decodeTargetLayers.map(\.spatialID) == [0, 1])
        #expect(Self.l2t1.maxSpatialID == 1)
    }

    /// What a forwarder writes for a player that gets only the lowest target: the active
    /// decode targets, with and without the structure attached.
    @Test func theActiveDecodeTargetsAForwarderSets() throws {
        var key = DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 0, frameNumber: 9,
                                       structure: Self.l1t3, frame: Self.l1t3.templates[0])
        key.activeDecodeTargets = 0b001
        let withStructure = try parse(try #require(written(key)))
        #expect(withStructure.activeDecodeTargets == 0b001 && withStructure.structure == Self.l1t3)
        var delta = DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 1, frameNumber: 10,
                                         frame: Self.l1t3.templates[1])
        delta.activeDecodeTargets = 0b011
        let bytes = try #require(written(delta, latest: Self.l1t3))
        #expect(bytes.count == 4)  // 24 + 5 flag bits + 3 target bits
        #expect(try parse(bytes, latest: Self.l1t3).activeDecodeTargets == 0b011)
    }

    /// Custom indications, frame differences of every size, and chain differences.
    @Test func customFieldsSurviveTheirBits() throws {
        var frame = DependencyDescriptor(startOfFrame: true, endOfFrame: false, templateID: 61, frameNumber: 300,
                                         frame: Self.l2t1.templates[1])
        frame.customDTIs = true
        frame.dtis = Self.dtis("RD")
        frame.customFrameDiffs = true
        frame.frameDiffs = [1, 16, 17, 256, 257, 4096]
        frame.customChains = true
        frame.chainDiffs = [200, 3]
        let bytes = try #require(written(frame, latest: Self.l2t1))
        #expect(try parse(bytes, latest: Self.l2t1) == frame)
    }

    @Test func badDescriptorsAreRefused() throws {
        #expect(throws: DependencyDescriptorError.tooShort) { try self.parse([0x80, 0x00]) }
        #expect(throws: DependencyDescriptorError.noStructure) { try self.parse([0x80, 0x00, 0x01]) }
        // Template 5 is past L1T3's five (ids 0 to 4).
        #expect(throws: DependencyDescriptorError.unknownTemplate(5)) { try self.parse([0x85, 0x00, 0x01], latest: Self.l1t3) }
        // Active targets named, with no structure known.
        #expect(throws: DependencyDescriptorError.noStructure) { try self.parse([0x80, 0x00, 0x01, 0x40]) }
        // A structure cut short.
        let whole = try #require(written(DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 60,
                                                              frameNumber: 1, structure: Self.l2t1,
                                                              frame: Self.l2t1.templates[0])))
        for length in 4..<whole.count - 1 {
            #expect(throws: DependencyDescriptorError.self) { try self.parse(Array(whole[..<length])) }
        }
        // 65 templates: next_layer_idc 0 (the same layers) over and over, never 3.
        let endless = [0xc0, 0x00, 0x01, 0x80, 0x00] + [UInt8](repeating: 0x00, count: 40)
        #expect(throws: DependencyDescriptorError.tooManyTemplates) { try self.parse(endless) }
    }

    /// What cannot be written is refused, not written wrong.
    @Test func theWriterRefusesWhatTheSyntaxCannotSay() {
        var backwards = Self.l1t3
        backwards.templates.swapAt(1, 3)  // T2 before T0: template_layers cannot say it
        #expect(!backwards.isWritable)
        let frame = DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 0, frameNumber: 1,
                                         structure: backwards, frame: backwards.templates[0])
        #expect(written(frame) == nil)
        let unknown = DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 9, frameNumber: 1,
                                           frame: Self.l1t3.templates[0])
        #expect(written(unknown, latest: Self.l1t3) == nil)
        var tiny = [UInt8](repeating: 0, count: 3)
        let key = DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 0, frameNumber: 1,
                                       structure: Self.l1t3, frame: Self.l1t3.templates[0])
        #expect(tiny.withUnsafeMutableBytes { key.write(into: $0, latest: nil) } == nil)
    }
}
