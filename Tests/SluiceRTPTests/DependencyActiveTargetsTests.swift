import Testing
@testable import SluiceRTP

/// The active decode targets rewrite (`DependencyActiveTargets`): whatever form the publisher's
/// descriptor had (mandatory fields alone, extended without the bitmask, with one, with the
/// structure, with custom fields after), the rewritten bytes parse to the same descriptor with
/// the bitmask set, and read the same layers on the packet path.
struct DependencyActiveTargetsTests {
    private typealias Tests = DependencyDescriptorTests

    private func bytes(_ descriptor: DependencyDescriptor, latest: DependencyStructure?) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { descriptor.write(into: $0, latest: latest) }!
        return Array(buffer[..<count])
    }

    /// The rewrite of `source` with `mask`; out starts as junk, which it must not keep.
    private func rewrite(_ source: [UInt8], structureEnd: Int = 0, targets: Int, mask: UInt32,
                         room: Int = 256) -> [UInt8]? {
        var out = [UInt8](repeating: 0xa5, count: room)
        let count = source.withUnsafeBytes { raw in
            out.withUnsafeMutableBytes { DependencyActiveTargets.write(raw, attachesStructure: structureEnd > 0,
                                                                        structureEndBit: structureEnd, targets: targets,
                                                                        mask: mask, into: $0) }
        }
        return count.map { Array(out[..<$0]) }
    }

    private func parse(_ bytes: [UInt8], latest: DependencyStructure?) throws -> DependencyDescriptor {
        try bytes.withUnsafeBytes { try DependencyDescriptor(parsing: $0, latest: latest) }
    }

    @Test(arguments: [Tests.l1t3, Tests.l2t1])
    func aStructureFrameGetsTheBitmaskAfterItsStructure(_ structure: DependencyStructure) throws {
        let key = DependencyDescriptor(startOfFrame: true, endOfFrame: false, templateID: structure.templateIDOffset,
                                       frameNumber: 7, structure: structure, frame: structure.templates[0])
        let source = bytes(key, latest: nil)
        let parsed = try parse(source, latest: nil)
        #expect(parsed.activeDecodeTargets == UInt32((1 << structure.decodeTargetCount) - 1))
        let out = try #require(rewrite(source, structureEnd: parsed.activeTargetsBit,
                                       targets: structure.decodeTargetCount, mask: 0b1))
        var expected = key
        expected.activeDecodeTargets = 0b1
        #expect(try parse(out, latest: nil) == expected)
        // Again over its own output: the bitmask is now there, and is overwritten in place.
        let again = try #require(rewrite(out, structureEnd: parsed.activeTargetsBit,
                                         targets: structure.decodeTargetCount, mask: 0b11))
        #expect(again.count == out.count)
        expected.activeDecodeTargets = 0b11
        #expect(try parse(again, latest: nil) == expected)
    }

    @Test func theMandatoryFieldsAloneGetTheExtendedFlags() throws {
        let structure = Tests.l1t3
        let delta = DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 3, frameNumber: 65535,
                                         frame: structure.templates[3])
        let source = bytes(delta, latest: structure)
        #expect(source.count == 3)
        let out = try #require(rewrite(source, targets: 3, mask: 0b011))
        var expected = delta
        expected.activeDecodeTargets = 0b011
        #expect(try parse(out, latest: structure) == expected)
    }

    /// Custom frame diffs and chains follow the bitmask, so they move along with it.
    @Test func customFieldsAfterTheBitmaskMoveAlong() throws {
        let structure = Tests.l2t1
        var frame = structure.templates[3]
        frame.frameDiffs = [1, 300]
        frame.chainDiffs = [9, 200]
        var delta = DependencyDescriptor(startOfFrame: false, endOfFrame: true, templateID: 63, frameNumber: 1234, frame: frame)
        delta.customFrameDiffs = true
        delta.customChains = true
        let source = bytes(delta, latest: structure)
        let out = try #require(rewrite(source, targets: 2, mask: 0b10))
        var expected = delta
        expected.activeDecodeTargets = 0b10
        #expect(try parse(out, latest: structure) == expected)
        // The packet path reads the same frame from the rewritten bytes.
        var table = DependencyTemplateTable()
        let key = DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 60, frameNumber: 1233,
                                       structure: structure, frame: structure.templates[0])
        _ = bytes(key, latest: nil).withUnsafeBytes { DependencyFrame.read($0, offset: 0, table: &table) }
        let before = source.withUnsafeBytes { DependencyFrame.read($0, offset: 0, table: &table) }
        var after = out.withUnsafeBytes { DependencyFrame.read($0, offset: 0, table: &table) }
        after?.length = before?.length ?? 0
        #expect(before != nil && after == before)
    }

    @Test func theTableKnowsWhereItsStructureEnds() throws {
        let structure = Tests.l2t1
        let key = DependencyDescriptor(startOfFrame: true, endOfFrame: true, templateID: 60, frameNumber: 1,
                                       structure: structure, frame: structure.templates[0])
        let source = bytes(key, latest: nil)
        var table = DependencyTemplateTable()
        _ = source.withUnsafeBytes { DependencyFrame.read($0, offset: 0, table: &table) }
        #expect(table.structureEndBit == (try parse(source, latest: nil)).activeTargetsBit)
        #expect(table.structureEndBit > 29)
    }

    @Test func whatCannotBeWrittenIsNil() {
        #expect(rewrite([0x80, 0x00], targets: 3, mask: 1) == nil)
        #expect(rewrite([0x80, 0x00, 0x01], targets: 3, mask: 1, room: 3) == nil)
        #expect(rewrite([0x80, 0x00, 0x01, 0x80], structureEnd: 400, targets: 3, mask: 1) == nil)
        #expect(rewrite([0x80, 0x00, 0x01], targets: 0, mask: 1) == nil)
    }
}
