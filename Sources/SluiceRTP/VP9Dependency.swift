/// VP9 SVC from the VP9 payload descriptor (draft-ietf-payload-vp9-16) alone, for a publisher
/// that did not negotiate the dependency descriptor: each packet's layer indices read as the
/// descriptor's frame would be (`DependencyFrame`), against a structure made from the
/// scalability structure (SS), so the forwarder follows VP9 exactly as it follows AV1.
///
/// - Decode targets: one per spatial and temporal layer (target `s * T + t`), each holding
///   the frames of layers up to its own.
/// - A frame of a lower spatial layer belongs to a higher target unless it says the layer
///   above does not use it (Z): in K-SVC (`L3T3_KEY`) that leaves the upper targets only
///   their own layer between key pictures; in full SVC (`L3T3`) they hold the layers below.
/// - Switch points: every frame of a key picture, for every target; a frame of temporal
///   layer 0 that allows switching up (U), for the targets of its spatial layer (no frame of
///   a higher temporal layer after it refers to one before it).
///
/// Nothing allocates per packet; the structure is remade (and the table loaded, which
/// allocates) only when the SS or the layers seen change.
public struct VP9Dependency {
    public private(set) var spatialLayers = 0
    public private(set) var temporalLayers = 0
    private var sizes: [(width: Int, height: Int)] = []
    /// The RTP timestamp of the last key picture: its upper spatial layers' frames are part
    /// of it.
    private var keyTimestamp: UInt32 = 0
    private var sawKey = false

    /// Targets are spatial x temporal, at most the table's 32; the table keeps 4 sizes.
    public static let maxSpatialLayers = 4
    public static let maxTemporalLayers = 8

    public init() {}

    /// The frame `descriptor` (the packet's, whose payload is `payload`) describes, read
    /// against `table`, which this loads when the layers change. Nil without layer indices, or
    /// while the stream has one layer only (there is nothing to choose).
    public mutating func frame(_ descriptor: VP9PayloadDescriptor, payload: UnsafeRawBufferPointer,
                               timestamp: UInt32, table: inout DependencyTemplateTable) -> DependencyFrame? {
        guard descriptor.hasLayerIndices, let sid = descriptor.spatialLayerIndex,
              let tid = descriptor.temporalLayerIndex,
              Int(sid) < Self.maxSpatialLayers, Int(tid) < Self.maxTemporalLayers else { return nil }
        var spatial = max(spatialLayers, Int(sid) + 1)
        var temporal = max(temporalLayers, Int(tid) + 1)
        var topSize: (width: Int, height: Int)? = sizes.last
        if descriptor.hasScalabilityStructure {
            // The SS speaks for the whole stream: it may shrink the layers too.
            spatial = min(Self.maxSpatialLayers, max(descriptor.spatialLayerCount, Int(sid) + 1))
            if descriptor.groupTemporalLayerCount > 0 {
                temporal = min(Self.maxTemporalLayers, max(descriptor.groupTemporalLayerCount, Int(tid) + 1))
            }
            if let width = descriptor.width, let height = descriptor.height { topSize = (width, height) }
        }
        if spatial != spatialLayers || temporal != temporalLayers
            || topSize?.width != sizes.last?.width || topSize?.height != sizes.last?.height {
            load(spatial: spatial, temporal: temporal, payload: descriptor.hasScalabilityStructure ? payload : nil,
                 table: &table)
        }
        if descriptor.isKeyFrame {
            keyTimestamp = timestamp
            sawKey = true
        }
        guard spatialLayers * temporalLayers > 1 else { return nil }
        let inKeyPicture = sawKey && timestamp == keyTimestamp && !descriptor.isInterPicturePredicted
        var frame = DependencyFrame()
        frame.spatialID = sid
        frame.temporalID = tid
        frame.startOfFrame = descriptor.isStartOfFrame
        frame.endOfFrame = descriptor.isEndOfFrame
        frame.attachesStructure = descriptor.isKeyFrame
        frame.frameNumber = (descriptor.pictureID ?? 0) &* UInt16(Self.maxSpatialLayers) &+ UInt16(sid)
        frame.generation = table.generation
        frame.indications = Self.indications(sid: Int(sid), tid: Int(tid), spatialLayers: spatialLayers,
                                             temporalLayers: temporalLayers, inKeyPicture: inKeyPicture,
                                             notUsedAbove: descriptor.isNotReferencedByUpperSpatialLayer,
                                             switchesUp: descriptor.isSwitchingUpPoint)
        return frame
    }

    /// Each target's indication for a frame of layers (`sid`, `tid`), packed 2 bits a target.
    @inline(__always)
    static func indications(sid: Int, tid: Int, spatialLayers: Int, temporalLayers: Int, inKeyPicture: Bool,
                            notUsedAbove: Bool, switchesUp: Bool) -> UInt64 {
        var packed: UInt64 = 0
        for s in sid..<spatialLayers {
            // A lower layer's frame the layer above does not use is no part of the targets above.
            if s > sid && notUsedAbove && !inKeyPicture { break }
            for t in tid..<temporalLayers {
                let indication: DecodeTargetIndication
                if inKeyPicture || (switchesUp && tid == 0 && s == sid) {
                    indication = .switchPoint
                } else {
                    indication = .required
                }
                packed |= UInt64(indication.rawValue) << UInt64(2 * (s * temporalLayers + t))
            }
        }
        return packed
    }

    /// A structure of `spatial` x `temporal` targets, one template per layer pair, with the
    /// SS's sizes when `payload` brings them (else the last known).
    private mutating func load(spatial: Int, temporal: Int, payload: UnsafeRawBufferPointer?,
                               table: inout DependencyTemplateTable) {
        if let payload {
            let read = VP9PayloadDescriptor.layerSizes(in: payload)
            if !read.isEmpty { sizes = Array(read.prefix(spatial)) }
        }
        let count = spatial * temporal
        var templates: [FrameDependencyTemplate] = []
        for sid in 0..<spatial {
            for tid in 0..<temporal {
                // K-SVC's shape: a target holds its own spatial layer. The frames below that
                // full SVC adds are present frame by frame (`indications`); so a spatial layer
                // down waits for a key picture, as it must in K-SVC, where the player lacks
                // the lower layer's frames since the last one.
                let dtis = (0..<count).map { target -> DecodeTargetIndication in
                    sid == target / temporal && tid <= target % temporal ? .required : .notPresent
                }
                templates.append(FrameDependencyTemplate(spatialID: sid, temporalID: tid, dtis: dtis))
            }
        }
        let resolutions = sizes.count == spatial
            ? sizes.map { DependencyStructure.Resolution(width: $0.width, height: $0.height) } : []
        let structure = DependencyStructure(templateIDOffset: 0, decodeTargetCount: count, templates: templates,
                                            resolutions: resolutions)
        guard table.load(structure, tail: UnsafeRawBufferPointer(start: nil, count: 0)) else { return }
        spatialLayers = spatial
        temporalLayers = temporal
    }
}
