/// Frames per second, counted from RTP timestamps that change, sampled at each report tick.
struct FrameRateMeter {
    private var lastTimestamp: UInt32 = 0
    private var frames: UInt64 = 0
    private var lastFrames: UInt64 = 0
    private var lastMicros: UInt64 = 0
    private(set) var fps: Double = 0

    @inline(__always)
    mutating func record(timestamp: UInt32) {
        if timestamp != lastTimestamp || frames == 0 {
            frames += 1
            lastTimestamp = timestamp
        }
    }

    mutating func sample(now: UInt64) {
        if lastMicros > 0, now > lastMicros {
            fps = Double(frames - lastFrames) * 1_000_000 / Double(now - lastMicros)
        }
        lastFrames = frames
        lastMicros = now
    }
}
