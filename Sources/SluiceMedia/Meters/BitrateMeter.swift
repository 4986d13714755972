/// Bits per second over roughly the last second, from byte counts sampled at each tick.
struct BitrateMeter {
    private var lastBytes: UInt64 = 0
    private var lastMicros: UInt64 = 0
    private(set) var kbps: Double = 0

    mutating func sample(totalBytes: UInt64, now: UInt64) {
        if lastMicros > 0, now > lastMicros {
            kbps = Double(totalBytes - lastBytes) * 8 / Double(now - lastMicros) * 1000
        }
        lastBytes = totalBytes
        lastMicros = now
    }
}
