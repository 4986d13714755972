/// The Dependency Descriptor RTP header extension (AV1 RTP specification, appendix A,
/// `https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension`):
/// what one packet says about its frame (its place in the frame, its number, its template,
/// hence its layers and dependencies) without the payload being read. The structure the
/// templates come from arrives with key frames; a descriptor without one is read against the
/// last one the stream sent.
///
/// Read with every field bounded (`DependencyDescriptorError`); written back with the same
/// bits, so a forwarder can change what it must (the active decode targets, the frame
/// number) and leave the rest.
public struct DependencyDescriptor: Equatable, Sendable {
    public var startOfFrame: Bool
    public var endOfFrame: Bool
    /// `frame_dependency_template_id`, 0 to 63.
    public var templateID: Int
    public var frameNumber: UInt16
    /// The structure this packet carries (a key frame's first packet), if any.
    public var structure: DependencyStructure?
    /// The decode targets the sender still sends (bit i: decode target i), when this packet
    /// says so: a packet that carries a structure says all of them unless it says otherwise.
    public var activeDecodeTargets: UInt32?

    /// The frame's own dependency definition: from its template, or given in the packet where
    /// the `custom` flags say so.
    public var spatialID: Int
    public var temporalID: Int
    public var dtis: [DecodeTargetIndication]
    public var frameDiffs: [Int]
    public var chainDiffs: [Int]
    public var customDTIs = false
    public var customFrameDiffs = false
    public var customChains = false
    /// Read: the bit (from the value's first) where the active decode targets bitmask is, or
    /// would go: after the flags and the structure the descriptor attaches. 0 without the
    /// extended fields.
    public private(set) var activeTargetsBit = 0

    /// The descriptor's meaning: where a parse found its bitmask is no part of it.
    public static func == (a: Self, b: Self) -> Bool {
        a.startOfFrame == b.startOfFrame && a.endOfFrame == b.endOfFrame && a.templateID == b.templateID
            && a.frameNumber == b.frameNumber && a.structure == b.structure && a.activeDecodeTargets == b.activeDecodeTargets
            && a.spatialID == b.spatialID && a.temporalID == b.temporalID && a.dtis == b.dtis && a.frameDiffs == b.frameDiffs
            && a.chainDiffs == b.chainDiffs && a.customDTIs == b.customDTIs && a.customFrameDiffs == b.customFrameDiffs
            && a.customChains == b.customChains
    }

    public init(startOfFrame: Bool, endOfFrame: Bool, templateID: Int, frameNumber: UInt16,
                structure: DependencyStructure? = nil, activeDecodeTargets: UInt32? = nil, frame: FrameDependencyTemplate) {
        self.startOfFrame = startOfFrame
        self.endOfFrame = endOfFrame
        self.templateID = templateID
        self.frameNumber = frameNumber
        self.structure = structure
        self.activeDecodeTargets = activeDecodeTargets
        spatialID = frame.spatialID
        temporalID = frame.temporalID
        dtis = frame.dtis
        frameDiffs = frame.frameDiffs
        chainDiffs = frame.chainDiffs
    }

    /// Reads `bytes` (the extension's value) against `latest`, the structure the stream sent
    /// last; one the packet carries takes its place (and is in `structure`).
    public init(parsing bytes: UnsafeRawBufferPointer, latest: DependencyStructure?) throws(DependencyDescriptorError) {
        guard bytes.count >= 3 else { throw .tooShort }
        var reader = ExpGolombReader(bytes)
        func bits(_ count: Int) throws(DependencyDescriptorError) -> Int {
            guard let value = reader.readBits(count) else { throw .tooShort }
            return Int(value)
        }
        startOfFrame = try bits(1) == 1
        endOfFrame = try bits(1) == 1
        templateID = try bits(6)
        frameNumber = UInt16(try bits(16))
        var structure: DependencyStructure?
        if bytes.count > 3 {
            let structurePresent = try bits(1) == 1
            let activePresent = try bits(1) == 1
            customDTIs = try bits(1) == 1
            customFrameDiffs = try bits(1) == 1
            customChains = try bits(1) == 1
            if structurePresent {
                structure = try Self.readStructure(&reader)
            }
            activeTargetsBit = reader.bitOffset
            let targets = (structure ?? latest)?.decodeTargetCount
            if activePresent {
                guard let targets else { throw .noStructure }
                activeDecodeTargets = UInt32(try bits(targets))
            } else if let targets, structure != nil {
                activeDecodeTargets = UInt32(truncatingIfNeeded: (UInt64(1) << targets) - 1)
            }
        }
        self.structure = structure
        guard let known = structure ?? latest else { throw .noStructure }
        guard let template = known.template(id: templateID) else { throw .unknownTemplate(templateID) }
        spatialID = template.spatialID
        temporalID = template.temporalID
        dtis = template.dtis
        frameDiffs = template.frameDiffs
        chainDiffs = template.chainDiffs
        if customDTIs {
            dtis = try (0..<known.decodeTargetCount).map { _ throws(DependencyDescriptorError) in
                DecodeTargetIndication(rawValue: UInt8(try bits(2)))!
            }
        }
        if customFrameDiffs {
            frameDiffs = []
            while true {
                let size = try bits(2)
                guard size > 0 else { break }
                guard frameDiffs.count < DependencyStructure.maxFrameDiffs else { throw .tooManyFrameDiffs }
                frameDiffs.append(try bits(4 * size) + 1)
            }
        }
        if customChains {
            chainDiffs = try (0..<known.chainCount).map { _ throws(DependencyDescriptorError) in try bits(8) }
        }
        // What is left is zero padding (A.8.2); it is not checked, as receivers do not.
    }

    private static func readStructure(_ reader: inout ExpGolombReader) throws(DependencyDescriptorError) -> DependencyStructure {
        func bits(_ count: Int) throws(DependencyDescriptorError) -> Int {
            guard let value = reader.readBits(count) else { throw .tooShort }
            return Int(value)
        }
        func ns(_ n: Int) throws(DependencyDescriptorError) -> Int {
            var width = 0
            var x = n
            while x != 0 { x >>= 1; width += 1 }
            let m = (1 << width) - n
            let value = try bits(width - 1)
            guard value >= m else { return value }
            return (value << 1) - m + (try bits(1))
        }
        let offset = try bits(6)
        let targets = try bits(5) + 1
        // template_layers
        var layers: [(spatial: Int, temporal: Int)] = []
        var spatial = 0, temporal = 0
        while true {
            guard layers.count < DependencyStructure.maxTemplates else { throw .tooManyTemplates }
            layers.append((spatial, temporal))
            let next = try bits(2)
            if next == 3 { break }
            if next == 1 { temporal += 1 }
            if next == 2 { temporal = 0; spatial += 1 }
        }
        var templates = try layers.map { layer throws(DependencyDescriptorError) in
            FrameDependencyTemplate(spatialID: layer.spatial, temporalID: layer.temporal,
                                    dtis: try (0..<targets).map { _ throws(DependencyDescriptorError) in
                                        DecodeTargetIndication(rawValue: UInt8(try bits(2)))!
                                    })
        }
        for index in templates.indices {
            while try bits(1) == 1 {
                guard templates[index].frameDiffs.count < DependencyStructure.maxFrameDiffs else { throw .tooManyFrameDiffs }
                templates[index].frameDiffs.append(try bits(4) + 1)
            }
        }
        let chains = try ns(targets + 1)
        var protectedBy: [Int] = []
        if chains > 0 {
            protectedBy = try (0..<targets).map { _ throws(DependencyDescriptorError) in try ns(chains) }
            for index in templates.indices {
                templates[index].chainDiffs = try (0..<chains).map { _ throws(DependencyDescriptorError) in try bits(4) }
            }
        }
        var resolutions: [DependencyStructure.Resolution] = []
        if try bits(1) == 1 {
            resolutions = try (0...spatial).map { _ throws(DependencyDescriptorError) in
                DependencyStructure.Resolution(width: try bits(16) + 1, height: try bits(16) + 1)
            }
        }
        return DependencyStructure(templateIDOffset: offset, decodeTargetCount: targets, templates: templates,
                                   chainCount: chains, decodeTargetProtectedBy: protectedBy, resolutions: resolutions)
    }
}

public enum DependencyDescriptorError: Error, Equatable, Sendable {
    /// The bits ran out before a field did.
    case tooShort
    /// It names a template, or active decode targets, and no structure is known.
    case noStructure
    /// Its template id is not in the structure.
    case unknownTemplate(Int)
    case tooManyTemplates
    case tooManyFrameDiffs
}
