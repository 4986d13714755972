import SluiceRTP

/// A stream's decode targets as its players choose among them (the dependency descriptor's
/// structure, AV1 RTP specification A.8.3): each target's spatial and temporal layer, and which
/// targets a player of one can decode too. Made by the source off the packet path, once per
/// structure, and copied into each player's `Forwarder`; `generation` names the structure, so a
/// forwarder knows a packet read against a newer one.
struct DependencyTargets: Equatable, Sendable {
    var generation: UInt32 = 0
    /// Per decode target: spatial id << 8 | temporal id.
    var layers: [UInt16] = []
    /// Per decode target: bit i set when target i's frames are all part of it too.
    var contained: [UInt32] = []
    /// The highest spatial id of the structure.
    var maxSpatialID = 0
    /// Where the structure ends in the descriptor that attaches it (`DependencyTemplateTable`).
    var structureEndBit = 0

    init() {}

    init(_ table: DependencyTemplateTable) {
        generation = table.generation
        maxSpatialID = table.maxSpatialID
        structureEndBit = table.structureEndBit
        layers = (0..<table.decodeTargetCount).map { target in
            let (s, t) = table.layers(ofTarget: target)
            return UInt16(s) << 8 | UInt16(t)
        }
        contained = (0..<table.decodeTargetCount).map { table.targetsContained(in: $0) }
    }

    var isEmpty: Bool { layers.isEmpty }

    func spatialID(ofTarget target: Int) -> Int { layers.indices.contains(target) ? Int(layers[target] >> 8) : 0 }

    /// The highest target within `spatialID` and `temporalID` (by spatial, then temporal id);
    /// -1 when none is.
    func target(spatialID: Int, temporalID: Int) -> Int {
        DependencyTemplateTable.highestTarget(count: layers.count, layers: { (Int(layers[$0] >> 8), Int(layers[$0] & 0xff)) },
                                              spatialID: spatialID, temporalID: temporalID)
    }
}
