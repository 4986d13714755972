/// How a frame matters to a decode target (AV1 RTP specification, A.8.3.1, table A.1).
public enum DecodeTargetIndication: UInt8, Equatable, Sendable {
    /// `-`: not part of the decode target.
    case notPresent = 0
    /// `D`: part of it, but no later frame of it depends on this one.
    case discardable = 1
    /// `S`: a switch point: the decode target can be decoded from this frame on.
    case switchPoint = 2
    /// `R`: part of it, and later frames of it depend on this one.
    case required = 3
}

/// One frame dependency template (A.8.3.2): a frame's layers, its decode target indications,
/// the frame-number differences of the frames it depends on, and of the last frame of each
/// chain. Descriptors refer to templates by id instead of carrying all this.
public struct FrameDependencyTemplate: Equatable, Sendable {
    public var spatialID: Int
    public var temporalID: Int
    public var dtis: [DecodeTargetIndication]
    /// 1 to 16 each.
    public var frameDiffs: [Int]
    /// 0 to 15 each, one per chain.
    public var chainDiffs: [Int]

    public init(spatialID: Int, temporalID: Int, dtis: [DecodeTargetIndication], frameDiffs: [Int] = [],
                chainDiffs: [Int] = []) {
        self.spatialID = spatialID
        self.temporalID = temporalID
        self.dtis = dtis
        self.frameDiffs = frameDiffs
        self.chainDiffs = chainDiffs
    }
}

/// The template dependency structure (A.8.3.2), which a key frame's first packet carries and
/// every later descriptor of the stream refers to until the next one.
public struct DependencyStructure: Equatable, Sendable {
    public struct Resolution: Equatable, Sendable {
        public var width: Int
        public var height: Int

        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// Template ids run from this offset, wrapping at 64.
    public var templateIDOffset: Int
    public var decodeTargetCount: Int
    /// In the order the structure lists them: spatial id never falls, temporal id falls only
    /// with a new spatial id (`template_layers`).
    public var templates: [FrameDependencyTemplate]
    public var chainCount: Int
    /// Per decode target, the chain that protects it (when `chainCount > 0`).
    public var decodeTargetProtectedBy: [Int]
    /// Per spatial layer, when the structure gives them.
    public var resolutions: [Resolution]

    /// A structure may hold at most 64 templates (their ids are 6 bits) and 32 decode targets
    /// (the active decode targets bitmask is 32 bits).
    public static let maxTemplates = 64
    public static let maxDecodeTargets = 32
    /// Not a limit of the specification: more dependencies per template than any encoder
    /// makes, kept small so that a hostile structure costs little to parse.
    public static let maxFrameDiffs = 16

    public init(templateIDOffset: Int, decodeTargetCount: Int, templates: [FrameDependencyTemplate],
                chainCount: Int = 0, decodeTargetProtectedBy: [Int] = [], resolutions: [Resolution] = []) {
        self.templateIDOffset = templateIDOffset
        self.decodeTargetCount = decodeTargetCount
        self.templates = templates
        self.chainCount = chainCount
        self.decodeTargetProtectedBy = decodeTargetProtectedBy
        self.resolutions = resolutions
    }

    public var maxSpatialID: Int { templates.last?.spatialID ?? 0 }

    /// The spatial and temporal layer of each decode target: the highest of the templates
    /// that are part of it (`decode_target_layers`).
    public var decodeTargetLayers: [(spatialID: Int, temporalID: Int)] {
        (0..<decodeTargetCount).map { target in
            var layers = (spatialID: 0, temporalID: 0)
            for template in templates where template.dtis[target] != .notPresent {
                layers.spatialID = max(layers.spatialID, template.spatialID)
                layers.temporalID = max(layers.temporalID, template.temporalID)
            }
            return layers
        }
    }

    /// The template a descriptor's `frame_dependency_template_id` names, if the structure has it.
    public func template(id: Int) -> FrameDependencyTemplate? {
        let index = (id + 64 - templateIDOffset) % 64
        return index < templates.count ? templates[index] : nil
    }

    /// Whether the templates can be written: layers in the order `template_layers` can say,
    /// one indication per decode target, differences and counts in range.
    public var isWritable: Bool {
        guard (0...63).contains(templateIDOffset), (1...Self.maxDecodeTargets).contains(decodeTargetCount),
              (1...Self.maxTemplates).contains(templates.count), (0...decodeTargetCount).contains(chainCount),
              chainCount == 0 || decodeTargetProtectedBy.count == decodeTargetCount,
              decodeTargetProtectedBy.allSatisfy({ (0..<max(1, chainCount)).contains($0) }),
              resolutions.isEmpty || resolutions.count == maxSpatialID + 1,
              resolutions.allSatisfy({ (1...65536).contains($0.width) && (1...65536).contains($0.height) }),
              templates.first.map({ $0.spatialID == 0 && $0.temporalID == 0 }) == true else { return false }
        for (index, template) in templates.enumerated() {
            guard template.dtis.count == decodeTargetCount, template.frameDiffs.count <= Self.maxFrameDiffs,
                  template.frameDiffs.allSatisfy({ (1...16).contains($0) }),
                  template.chainDiffs.count == chainCount, template.chainDiffs.allSatisfy({ (0...15).contains($0) })
            else { return false }
            guard index > 0 else { continue }
            let previous = templates[index - 1]
            let same = template.spatialID == previous.spatialID && template.temporalID == previous.temporalID
            let nextTemporal = template.spatialID == previous.spatialID && template.temporalID == previous.temporalID + 1
            let nextSpatial = template.spatialID == previous.spatialID + 1 && template.temporalID == 0
            guard same || nextTemporal || nextSpatial else { return false }
        }
        return true
    }
}
