/// The key frames players asked for while the producer was busy: every layer, or some.
/// A value, so the fan-out can hand it back to the producer without a callback.
struct KeyFrameRequests: Equatable {
    private(set) var everyLayer = false
    /// Bit i: layer i.
    private(set) var layers: UInt64 = 0

    var isEmpty: Bool { !everyLayer && layers == 0 }

    mutating func add(layer: Int?) {
        guard let layer else {
            everyLayer = true
            return
        }
        if (0..<64).contains(layer) { layers |= 1 << UInt64(layer) }
    }

    func contains(layer: Int) -> Bool {
        everyLayer || ((0..<64).contains(layer) && layers & (1 << UInt64(layer)) != 0)
    }
}

extension KeyFrameRequests {
    mutating func merge(_ other: KeyFrameRequests) {
        if other.everyLayer { add(layer: nil) }
        var bits = other.layers
        while bits != 0 {
            let layer = bits.trailingZeroBitCount
            add(layer: layer)
            bits &= bits - 1
        }
    }
}
