/// One simulcast layer, or one spatial layer of an SVC encoding, as the stats show it
/// (docs/protocol.md section 3).
public struct LayerStats: Sendable, Equatable {
    public var index: Int
    public var rid: String?
    public var width: Int
    public var height: Int
    public var fps: Double
    public var bitrateKbps: Double
    public var active: Bool
    /// Temporal layers seen (VP8 TID + 1); 1 without temporal scalability.
    public var temporalLayers = 1

    /// The selector's view of spatial layers, as stats.
    static func spatial(_ layers: [LayerSelector.Layer], temporalLayers: Int) -> [LayerStats] {
        layers.map { layer in
            var entry = LayerStats(index: layer.index, rid: nil, width: layer.width, height: layer.height, fps: layer.fps,
                                   bitrateKbps: layer.bitrateKbps, active: layer.active)
            entry.temporalLayers = temporalLayers
            return entry
        }
    }

    public init(index: Int, rid: String?, width: Int, height: Int, fps: Double, bitrateKbps: Double, active: Bool) {
        self.index = index
        self.rid = rid
        self.width = width
        self.height = height
        self.fps = fps
        self.bitrateKbps = bitrateKbps
        self.active = active
    }
}
