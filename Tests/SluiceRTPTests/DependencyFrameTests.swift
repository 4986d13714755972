import Testing
@testable import SluiceRTP

/// The packet path's reading of a dependency descriptor (`DependencyFrame.read` against a
/// `DependencyTemplateTable`): the same layers and indications as the full parse, a repeated
/// structure not parsed again, and what a descriptor without a known structure gives.
struct DependencyFrameTests {
    private typealias DTI = DecodeTargetIndication

    /// The descriptor bytes of `descriptor`, written against `latest`.
    private func bytes(_ descriptor: DependencyDescriptor, latest: DependencyStructure?) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { descriptor.write(into: $0, latest: latest) }!
        return Array(buffer[..<count])
    }

    private func read(_ bytes: [UInt8], _ table: inout DependencyTemplateTable) -> DependencyFrame? {
        bytes.withUnsafeBytes { DependencyFrame.read($0, offset: 20, table: &table) }
    }

    private func keyFrame(_ structure: DependencyStructure, number: UInt16) -> DependencyDescriptor {
        DependencyDescriptor(startOfFrame: true, endOfFrame: false, templateID: structure.templateIDOffset,
                             frameNumber: number, structure: structure, frame: structure.templates[0])
    }

    private func frame(_ structure: DependencyStructure, template: Int, number: UInt16, end: Bool = true) -> DependencyDescriptor {
        DependencyDescriptor(startOfFrame: true, endOfFrame: end, templateID: (structure.templateIDOffset + template) % 64,
                             frameNumber: number, frame: structure.templates[template])
    }

    @Test(arguments: [DependencyDescriptorTests.l1t3, DependencyDescriptorTests.l2t1])
    func everyTemplateReadsAsTheFullParseDoes(_ structure: DependencyStructure) throws {
        var table = DependencyTemplateTable()
        let key = try #require(read(bytes(keyFrame(structure, number: 100), latest: nil), &table))
        #expect(key.attachesStructure && key.startOfFrame && !key.endOfFrame)
        #expect(key.frameNumber == 100 && key.offset == 20)
        #expect(table.isLoaded && table.decodeTargetCount == structure.decodeTargetCount)
        #expect(table.maxSpatialID == structure.maxSpatialID)
        for (index, template) in structure.templates.enumerated() {
            let frame = try #require(read(bytes(frame(structure, template: index, number: 101 + UInt16(index)),
                                                latest: structure), &table))
            #expect(!frame.attachesStructure && frame.endOfFrame)
            #expect(Int(frame.spatialID) == template.spatialID && Int(frame.temporalID) == template.temporalID)
            #expect((0..<structure.decodeTargetCount).map { frame.indication(target: $0) } == template.dtis)
        }
    }

    @Test func aRepeatedStructureIsKnownByItsBytes() throws {
        let structure = DependencyDescriptorTests.l2t1
        var table = DependencyTemplateTable()
        _ = try #require(read(bytes(keyFrame(structure, number: 1), latest: nil), &table))
        #expect(table.generation == 1)
        // The next key frame, another frame number, the same structure: not loaded again.
        _ = try #require(read(bytes(keyFrame(structure, number: 900), latest: nil), &table))
        #expect(table.generation == 1)
        var changed = structure
        changed.resolutions = [.init(width: 320, height: 180), .init(width: 640, height: 360)]
        _ = try #require(read(bytes(keyFrame(changed, number: 901), latest: nil), &table))
        #expect(table.generation == 2)
        #expect(table.resolution(spatialID: 1)! == (640, 360))
    }

    @Test func decodeTargetsAndWhatEachContains() throws {
        var table = DependencyTemplateTable()
        _ = try #require(read(bytes(keyFrame(DependencyDescriptorTests.l1t3, number: 1), latest: nil), &table))
        // L1T3: target 0 is T0, 1 is T0+T1, 2 all.
        #expect(table.decodeTarget(spatialID: 0, temporalID: 0) == 0)
        #expect(table.decodeTarget(spatialID: 0, temporalID: 1) == 1)
        #expect(table.decodeTarget(spatialID: 5, temporalID: 9) == 2)
        #expect(table.targetsContained(in: 0) == 0b001)
        #expect(table.targetsContained(in: 1) == 0b011)
        #expect(table.targetsContained(in: 2) == 0b111)
        var spatial = DependencyTemplateTable()
        _ = try #require(read(bytes(keyFrame(DependencyDescriptorTests.l2t1, number: 1), latest: nil), &spatial))
        #expect(spatial.decodeTarget(spatialID: 0, temporalID: 0) == 0)
        #expect(spatial.decodeTarget(spatialID: 1, temporalID: 0) == 1)
        #expect(spatial.targetsContained(in: 1) == 0b11)
        #expect(spatial.resolution(spatialID: 0)! == (640, 360))
    }

    @Test func customIndicationsComeFromThePacket() throws {
        let structure = DependencyDescriptorTests.l1t3
        var table = DependencyTemplateTable()
        _ = try #require(read(bytes(keyFrame(structure, number: 1), latest: nil), &table))
        var custom = frame(structure, template: 2, number: 2)
        custom.customDTIs = true
        custom.dtis = [.notPresent, .switchPoint, .required]
        custom.activeDecodeTargets = 0b011
        let read = try #require(read(bytes(custom, latest: structure), &table))
        #expect((0..<3).map { read.indication(target: $0) } == [.notPresent, .switchPoint, .required])
        #expect(read.temporalID == 1)
    }

    @Test func withoutAStructureNothingIsRead() throws {
        let structure = DependencyDescriptorTests.l1t3
        var table = DependencyTemplateTable()
        #expect(read(bytes(frame(structure, template: 1, number: 5), latest: structure), &table) == nil)
        #expect(read([0x80, 0x01], &table) == nil)
        _ = try #require(read(bytes(keyFrame(structure, number: 1), latest: nil), &table))
        // A template id the structure does not have.
        #expect(read([0xc0 | 0x20, 0x00, 0x02], &table) == nil)
    }

    @Test func theBytesAreFoundAgainInThePacket() {
        var frame = DependencyFrame()
        frame.offset = 2
        frame.length = 3
        let packet: [UInt8] = [9, 9, 1, 2, 3, 9]
        packet.withUnsafeBytes { raw in
            #expect(Array(frame.bytes(in: raw)!) == [1, 2, 3])
            #expect(frame.bytes(in: UnsafeRawBufferPointer(rebasing: raw[0..<4])) == nil)
        }
    }
}
