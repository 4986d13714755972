import SluiceRTP

/// What each decode target of an SVC encoding costs: the bytes of every frame that is part of
/// it (its decode target indication is not "not present"), measured like a simulcast layer's
/// bitrate. A player of a target gets exactly those frames, so this is its rate: in K-SVC a
/// spatial layer's own frames and its key pictures, in full SVC the layers below it as well.
/// Sized once for the most targets a structure may have; the packet path only adds.
struct DecodeTargetMeters {
    private var bytes: [UInt64]
    private var meters: [BitrateMeter]
    /// Frames per spatial layer, and their rate: an encoder short of bits drops a layer's
    /// frames, so a spatial layer may run below the encoding's picture rate.
    private var frames: [UInt64]
    private var lastFrames: [UInt64]
    private var fps: [Double]
    private var lastSample: UInt64 = 0

    init() {
        let count = DependencyStructure.maxDecodeTargets
        bytes = [UInt64](repeating: 0, count: count)
        meters = [BitrateMeter](repeating: BitrateMeter(), count: count)
        frames = [UInt64](repeating: 0, count: Self.maxSpatialLayers)
        lastFrames = [UInt64](repeating: 0, count: Self.maxSpatialLayers)
        fps = [Double](repeating: 0, count: Self.maxSpatialLayers)
    }

    /// A structure's spatial ids run 0...3 (`DependencyTemplateTable`).
    static let maxSpatialLayers = 4

    /// One packet of `size` bytes of `frame` (its indications, 2 bits per target).
    @inline(__always)
    mutating func record(_ frame: DependencyFrame, size: Int) {
        let indications = frame.indications
        if frame.startOfFrame && Int(frame.spatialID) < frames.count { frames[Int(frame.spatialID)] &+= 1 }
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
        if lastSample > 0, now > lastSample {
            for i in frames.indices { fps[i] = Double(frames[i] &- lastFrames[i]) * 1_000_000 / Double(now - lastSample) }
        }
        // Element by element: `lastFrames = frames` would share one buffer, and the packet
        // path's next count would copy it (an allocation a second, found by the alloc stage).
        for i in frames.indices { lastFrames[i] = frames[i] }
        lastSample = now
    }

    func kbps(target: Int) -> Double { meters.indices.contains(target) ? meters[target].kbps : 0 }

    func framesPerSecond(spatialID: Int) -> Double { fps.indices.contains(spatialID) ? fps[spatialID] : 0 }
}
