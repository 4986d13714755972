/// `recording.layer`: which simulcast layer a recording takes, by measured size among the
/// layers the publisher sends (a single-layer stream has only the one).
public enum RecordedLayer: String, Sendable, Equatable, CaseIterable {
    /// The largest: what a viewer on a good link sees.
    case top
    /// The middle one (the lower middle of an even count), as `quality: "medium"` picks.
    case middle
    /// The smallest: the cheapest file.
    case low

    /// The chosen layer's index among `layers` (index, pixel area, kbit/s), or nil for none.
    /// Size ranks first; at the same size (an encoder still ramping its top layer up, or
    /// scaled down for want of CPU) the higher bitrate is the higher layer.
    func pick(_ layers: [(index: Int, area: Int, kbps: Double)]) -> Int? {
        let ranked = layers.sorted { ($0.area, $0.kbps) < ($1.area, $1.kbps) }
        guard !ranked.isEmpty else { return nil }
        switch self {
        case .top: return ranked[ranked.count - 1].index
        case .middle: return ranked[(ranked.count - 1) / 2].index
        case .low: return ranked[0].index
        }
    }

    /// The same among measured layers (simulcast layers, or an SVC stream's spatial layers).
    func pick(measured layers: [LayerSelector.Layer]) -> Int? {
        pick(layers.map { (index: $0.index, area: $0.width * $0.height, kbps: $0.bitrateKbps) })
    }
}
