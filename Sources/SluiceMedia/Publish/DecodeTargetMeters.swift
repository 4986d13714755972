/// What each decode target of an SVC encoding costs: the bytes of every frame that is part of
/// it (its decode target indication is not "not present"), measured like a simulcast layer's
/// bitrate. A player of a target gets exactly those frames, so this is its rate: in K-SVC a
/// spatial layer's own frames and its key pictures, in full SVC the layers below it as well.
/// Sized once for the most targets a structure may have; the packet path only adds.
struct DecodeTargetMeters {
    private var bytes: [UInt64]
    private var meters: [BitrateMeter]

    init() {
        bytes = [UInt64](repeating: 0, count: DependencyTargetsLimit.maxTargets)
        meters = [BitrateMeter](repeating: BitrateMeter(), count: DependencyTargetsLimit.maxTargets)
    }

    /// One packet of `size` bytes whose frame has `indications` (2 bits per target).
    @inline(__always)
    mutating func record(indications: UInt64, size: Int) {
        // Bit 2i set when target i's indication is not 0 ("not present").
        var present = (indications | indications >> 1) & 0x5555_5555_5555_5555
        while present != 0 {
            let target = present.trailingZeroBitCount >> 1
            bytes[target] &+= UInt64(size)
            present &= present &- 1
        }
    }

    mutating func sample(now: UInt64) {
        for i in meters.indices { meters[i].sample(totalBytes: bytes[i], now: now) }
    }

    func kbps(target: Int) -> Double { meters.indices.contains(target) ? meters[target].kbps : 0 }
}

enum DependencyTargetsLimit {
    static let maxTargets = 32
}
