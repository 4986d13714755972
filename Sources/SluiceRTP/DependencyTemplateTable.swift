/// A stream's dependency structure as the packet path reads it: per template, its layers and
/// decode target indications packed in integers, in arrays sized once, so that reading a
/// descriptor against it allocates nothing. Loaded from a parsed `DependencyStructure` when a
/// key frame brings a new one; a key frame that repeats the structure (the usual case) is
/// recognised by its bytes and not parsed again.
public struct DependencyTemplateTable {
    public private(set) var isLoaded = false
    public private(set) var templateIDOffset = 0
    public private(set) var templateCount = 0
    public private(set) var decodeTargetCount = 0
    public private(set) var maxSpatialID = 0
    public private(set) var maxTemporalID = 0
    /// Per template (index from the offset): spatial id << 8 | temporal id.
    private var layers: [UInt16]
    /// Per template: 2 bits per decode target (`DecodeTargetIndication`), target 0 lowest.
    private var indications: [UInt64]
    /// Per decode target: spatial id << 8 | temporal id (`decode_target_layers`).
    private var targetLayers: [UInt16]
    /// Per spatial layer, when the structure gives them (else 0).
    private var widths: [Int32]
    private var heights: [Int32]
    /// What followed the frame number in the descriptor that brought the structure, to know it
    /// again cheaply.
    private var structureBytes: [UInt8]
    private var structureByteCount = 0
    /// Bumped at each new structure.
    public private(set) var generation: UInt32 = 0
    /// In the descriptor that brought the structure (and in each that repeats its bytes): the
    /// bit where the active decode targets bitmask is or would go, after the structure.
    public private(set) var structureEndBit = 0

    public init() {
        layers = [UInt16](repeating: 0, count: DependencyStructure.maxTemplates)
        indications = [UInt64](repeating: 0, count: DependencyStructure.maxTemplates)
        targetLayers = [UInt16](repeating: 0, count: DependencyStructure.maxDecodeTargets)
        widths = [Int32](repeating: 0, count: 4)
        heights = [Int32](repeating: 0, count: 4)
        structureBytes = [UInt8](repeating: 0, count: 256)
    }

    /// The template a descriptor names, as an index into the table; nil when the structure has
    /// no such template.
    @inline(__always)
    public func templateIndex(id: Int) -> Int? {
        guard isLoaded else { return nil }
        let index = (id &+ 64 &- templateIDOffset) & 63
        return index < templateCount ? index : nil
    }

    @inline(__always)
    public func spatialID(template index: Int) -> UInt8 { UInt8(truncatingIfNeeded: layers[index] >> 8) }
    @inline(__always)
    public func temporalID(template index: Int) -> UInt8 { UInt8(truncatingIfNeeded: layers[index]) }
    @inline(__always)
    public func indications(template index: Int) -> UInt64 { indications[index] }

    /// A decode target's layers; (0, 0) outside the structure.
    public func layers(ofTarget target: Int) -> (spatialID: Int, temporalID: Int) {
        guard target >= 0 && target < decodeTargetCount else { return (0, 0) }
        return (Int(targetLayers[target] >> 8), Int(targetLayers[target] & 0xff))
    }

    /// The highest decode target within `spatialID` and `temporalID`: the one whose layers are
    /// the highest not above them (by spatial id, then temporal id, then the higher index);
    /// -1 when none is.
    public func decodeTarget(spatialID: Int, temporalID: Int) -> Int {
        Self.highestTarget(count: decodeTargetCount, layers: layers(ofTarget:), spatialID: spatialID, temporalID: temporalID)
    }

    /// The search of `decodeTarget`, over any record of the targets' layers (a player's copy
    /// keeps them packed, without the table).
    public static func highestTarget(count: Int, layers: (Int) -> (spatialID: Int, temporalID: Int),
                                     spatialID: Int, temporalID: Int) -> Int {
        var best = -1
        var bestLayers = (spatial: -1, temporal: -1)
        for target in 0..<count {
            let (s, t) = layers(target)
            guard s <= spatialID, t <= temporalID else { continue }
            if (s, t) >= (bestLayers.spatial, bestLayers.temporal) {
                best = target
                bestLayers = (s, t)
            }
        }
        return best
    }

    /// Every decode target a player of `target` can decode too: those whose templates all
    /// belong to `target` as well (bit i: target i). What a player's active decode targets are.
    public func targetsContained(in target: Int) -> UInt32 {
        guard target >= 0 && target < decodeTargetCount else { return 0 }
        var mask: UInt32 = 0
        for other in 0..<decodeTargetCount {
            var contained = true
            for index in 0..<templateCount {
                let theirs = indications[index] >> UInt64(2 * other) & 3
                let mine = indications[index] >> UInt64(2 * target) & 3
                if theirs != 0 && mine == 0 { contained = false; break }
            }
            if contained { mask |= 1 << UInt32(other) }
        }
        return mask
    }

    /// A spatial layer's size, when the structure gives it.
    public func resolution(spatialID: Int) -> (width: Int, height: Int)? {
        guard spatialID >= 0 && spatialID < widths.count, widths[spatialID] > 0 else { return nil }
        return (Int(widths[spatialID]), Int(heights[spatialID]))
    }

    /// Whether `tail` (the descriptor's bytes after the frame number) repeats the one the
    /// loaded structure came with.
    @inline(__always)
    func matches(tail: UnsafeRawBufferPointer) -> Bool {
        guard isLoaded, tail.count == structureByteCount else { return false }
        for i in 0..<tail.count where structureBytes[i] != tail[i] { return false }
        return true
    }

    /// Takes `structure` as the stream's, brought by a descriptor whose bytes after the frame
    /// number are `tail`. False (and the table unchanged) when it does not fit the table.
    @discardableResult
    public mutating func load(_ structure: DependencyStructure, tail: UnsafeRawBufferPointer, structureEndBit: Int = 0) -> Bool {
        guard structure.templates.count <= DependencyStructure.maxTemplates,
              structure.decodeTargetCount <= DependencyStructure.maxDecodeTargets,
              structure.maxSpatialID < widths.count,
              structure.templates.allSatisfy({ $0.dtis.count == structure.decodeTargetCount && $0.temporalID < 256 })
        else { return false }
        templateIDOffset = structure.templateIDOffset
        templateCount = structure.templates.count
        decodeTargetCount = structure.decodeTargetCount
        maxSpatialID = 0
        maxTemporalID = 0
        for (index, template) in structure.templates.enumerated() {
            layers[index] = UInt16(template.spatialID) << 8 | UInt16(template.temporalID)
            var packed: UInt64 = 0
            for (target, dti) in template.dtis.enumerated() { packed |= UInt64(dti.rawValue) << UInt64(2 * target) }
            indications[index] = packed
            maxSpatialID = max(maxSpatialID, template.spatialID)
            maxTemporalID = max(maxTemporalID, template.temporalID)
        }
        for (target, layer) in structure.decodeTargetLayers.enumerated() {
            targetLayers[target] = UInt16(layer.spatialID) << 8 | UInt16(layer.temporalID)
        }
        for i in widths.indices {
            let resolution = i < structure.resolutions.count ? structure.resolutions[i] : nil
            widths[i] = Int32(resolution?.width ?? 0)
            heights[i] = Int32(resolution?.height ?? 0)
        }
        structureByteCount = min(tail.count, structureBytes.count)
        if tail.count > structureBytes.count { structureByteCount = -1 }  // never matched: parsed each time
        for i in 0..<max(0, structureByteCount) { structureBytes[i] = tail[i] }
        self.structureEndBit = structureEndBit
        isLoaded = true
        generation &+= 1
        return true
    }
}
