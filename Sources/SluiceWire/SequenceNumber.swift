/// Wrap-aware comparison and unwrapping of RTP sequence numbers and timestamps.
/// This is the one place where modular arithmetic lives (docs/design.md, hot-path rule 5):
/// everything past the parser works on 64-bit extended values.
public enum SequenceNumber {
    /// True when `a` comes after `b` in 16-bit serial-number order (RFC 1982).
    @inline(__always)
    public static func isNewer(_ a: UInt16, than b: UInt16) -> Bool {
        a != b && (a &- b) < 0x8000
    }

    /// Signed distance from `b` to `a`, in -32768...32767.
    @inline(__always)
    public static func distance(from b: UInt16, to a: UInt16) -> Int {
        Int(Int16(bitPattern: a &- b))
    }
}

public enum RTPTimestamp {
    @inline(__always)
    public static func isNewer(_ a: UInt32, than b: UInt32) -> Bool {
        a != b && (a &- b) < 0x8000_0000
    }
}

/// Extends 16-bit sequence numbers to 64 bits, tolerating reordering of up to half the space.
public struct SequenceUnwrapper {
    public private(set) var highest: Int64 = -1

    public init() {}

    /// The extended value of `seq`. Packets older than the highest seen map below it.
    @inline(__always)
    public mutating func unwrap(_ seq: UInt16) -> Int64 {
        if highest < 0 {
            highest = Int64(seq)
            return highest
        }
        let last = UInt16(truncatingIfNeeded: highest)
        let extended = highest + Int64(SequenceNumber.distance(from: last, to: seq))
        if extended > highest { highest = extended }
        return extended
    }
}

/// Extends 32-bit RTP timestamps to 64 bits.
public struct TimestampUnwrapper {
    public private(set) var highest: Int64 = -1

    public init() {}

    @inline(__always)
    public mutating func unwrap(_ ts: UInt32) -> Int64 {
        if highest < 0 {
            highest = Int64(ts)
            return highest
        }
        let last = UInt32(truncatingIfNeeded: highest)
        let extended = highest + Int64(Int32(bitPattern: ts &- last))
        if extended > highest { highest = extended }
        return extended
    }
}
