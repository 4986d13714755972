/// Chooses the simulcast layer a player should receive (docs/protocol.md "Constraints", Play):
/// the highest layer that fits every cap the player gave, then the quality it asked for,
/// then what its bandwidth estimate can carry. A pure function of its inputs, so it is
/// table-tested and runs off the packet path (at most a few times a second per player).
public enum LayerSelector {
    /// What the selector knows of one layer; `index` is the producer's layer number.
    public struct Layer: Equatable, Sendable {
        public var index: Int
        public var width: Int
        public var height: Int
        public var fps: Double
        public var bitrateKbps: Double
        public var active: Bool

        public init(index: Int, width: Int, height: Int, fps: Double = 0, bitrateKbps: Double = 0, active: Bool = true) {
            self.index = index
            self.width = width
            self.height = height
            self.fps = fps
            self.bitrateKbps = bitrateKbps
            self.active = active
        }
    }

    public enum Reason: Sendable {
        case constraints, bandwidth, publisher
    }

    public struct Choice: Equatable, Sendable {
        public var layer: Int
        public var reason: Reason
        /// Even the lowest layer does not fit the bandwidth estimate.
        public var notEnoughBandwidth: Bool
    }

    /// `layers` in any order; `bandwidthKbps` nil when there is no estimate yet.
    /// `current` is the layer being forwarded, for hysteresis: going up needs `upHeadroom`
    /// times the layer's bitrate, staying needs only the bitrate itself.
    public static func choose(layers: [Layer], constraints: VideoConstraints, bandwidthKbps: Double?,
                              current: Int? = nil, upHeadroom: Double = 1.25) -> Choice? {
        let active = layers.filter(\.active).sorted(by: ranksBelow)
        guard let lowest = active.first else { return nil }

        // 1. Caps: width/height as a bounding box, bitrate against the measured bitrate.
        let fitting = active.filter { layer in
            if let w = constraints.width, layer.width > 0, layer.width > w { return false }
            if let h = constraints.height, layer.height > 0, layer.height > h { return false }
            if let b = constraints.bitrateKbps ?? constraints.maxBitrateKbps, layer.bitrateKbps > 0,
               layer.bitrateKbps > Double(b) { return false }
            return true
        }
        let capped = fitting.isEmpty ? [lowest] : fitting

        // 2. Quality.
        var wanted: Layer
        switch constraints.quality {
        case .high, .auto: wanted = capped[capped.count - 1]
        case .medium: wanted = capped[capped.count / 2 - (capped.count % 2 == 0 ? 1 : 0)]
        case .low: wanted = capped[0]
        }
        let afterConstraints = wanted
        var reason: Reason = .constraints

        // 3. Bandwidth: step down until the layer fits the estimate (with headroom to climb).
        var notEnough = false
        if let bandwidth = bandwidthKbps {
            func fits(_ layer: Layer) -> Bool {
                guard layer.bitrateKbps > 0 else { return true }
                let rank = active.firstIndex(of: layer) ?? 0
                let currentRank = current.flatMap { c in active.firstIndex { $0.index == c } } ?? -1
                let needed = rank > currentRank ? layer.bitrateKbps * upHeadroom : layer.bitrateKbps
                return needed <= bandwidth
            }
            while !fits(wanted), let position = capped.firstIndex(of: wanted), position > 0 {
                wanted = capped[position - 1]
            }
            if !fits(wanted) {
                notEnough = lowest.bitrateKbps > bandwidth
            }
            if wanted != afterConstraints { reason = .bandwidth }
        }
        return Choice(layer: wanted.index, reason: reason, notEnoughBandwidth: notEnough)
    }

    /// Lower resolution first; unknown sizes keep the producer's order.
    static func ranksBelow(_ a: Layer, _ b: Layer) -> Bool {
        let areaA = a.width * a.height, areaB = b.width * b.height
        if areaA > 0 && areaB > 0 && areaA != areaB { return areaA < areaB }
        if a.bitrateKbps > 0 && b.bitrateKbps > 0 && areaA == 0 && areaB == 0 { return a.bitrateKbps < b.bitrateKbps }
        return a.index < b.index
    }
}
