/// Extends RTP's wrapping counters (16-bit sequence numbers, 32-bit timestamps) to Int64 by
/// taking each value as the nearest one to the highest seen: a reordered packet from before a
/// wrap stays before it.
struct SequenceUnwrapper<Counter: FixedWidthInteger & UnsignedInteger> {
    private(set) var highest: Int64?

    mutating func unwrap(_ value: Counter) -> Int64 {
        guard let highest else {
            self.highest = Int64(value)
            return Int64(value)
        }
        let unwrapped = Self.nearest(value, to: highest)
        if unwrapped > highest { self.highest = unwrapped }
        return unwrapped
    }

    /// `value` placed within half a cycle of `reference`.
    static func nearest(_ value: Counter, to reference: Int64) -> Int64 {
        let cycle = Int64(1) << Counter.bitWidth
        let low = reference & (cycle - 1)
        var delta = Int64(value) - low
        if delta > cycle / 2 { delta -= cycle } else if delta < -cycle / 2 { delta += cycle }
        return reference + delta
    }
}
