/// Tells from send and arrival times whether a queue is building on the path to a player
/// (the delay-based half of send-side bandwidth estimation, after the trendline filter of
/// draft-ietf-rmcat-gcc): packets sent within 5 ms form a group; the change in one-way delay
/// between groups is accumulated, smoothed, and the slope of a line fitted to the last 20
/// points says whether delay is growing (overuse), shrinking (underuse) or flat.
///
/// Jitter does not trip it: one late group moves the fitted slope little, and the threshold
/// adapts to the noise it sees. Fixed-size storage, no allocation after init.
struct DelayTrendDetector {
    enum Signal: Equatable { case normal, overuse, underuse }

    static let burstMicros: Int64 = 5_000
    static let window = 20
    static let smoothing = 0.9
    /// The fitted slope is scaled by this and by the number of deltas seen (at most 60).
    static let gain = 4.0

    private(set) var signal = Signal.normal
    /// The threshold the scaled trend is compared with (ms); adapts between 6 and 600.
    private(set) var threshold = 12.5

    // The group being filled, and the last complete one.
    private var groupFirstSend: Int64 = -1
    private var groupLastSend: Int64 = 0
    private var groupLastArrival: Int64 = 0
    private var previousSend: Int64 = -1
    private var previousArrival: Int64 = 0

    private var accumulatedMs = 0.0
    private var smoothedMs = 0.0
    private var deltas = 0
    private var firstArrival: Int64 = -1
    // The regression window, a ring of (arrival ms, smoothed delay ms).
    private var xs = [Double](repeating: 0, count: window)
    private var ys = [Double](repeating: 0, count: window)
    private var filled = 0
    private var next = 0
    private var overuseCount = 0
    private var lastThresholdUpdate: Int64 = -1
    private var previousTrend = 0.0

    /// One received packet, in send order: its send time (our clock) and arrival time (the
    /// player's clock), both in microseconds.
    mutating func add(sendMicros: Int64, arrivalMicros: Int64) {
        if groupFirstSend < 0 {
            groupFirstSend = sendMicros
        } else if sendMicros - groupFirstSend > Self.burstMicros {
            closeGroup()
            groupFirstSend = sendMicros
        }
        // The newest of each, so a packet reordered inside a group cannot make a delta negative.
        groupLastSend = max(groupLastSend, sendMicros)
        groupLastArrival = max(groupLastArrival, arrivalMicros)
    }

    private mutating func closeGroup() {
        defer {
            previousSend = groupLastSend
            previousArrival = groupLastArrival
        }
        guard previousSend >= 0 else { return }
        let sendDelta = groupLastSend - previousSend
        let arrivalDelta = groupLastArrival - previousArrival
        // Reordered or clock-jumped groups say nothing about queueing.
        guard arrivalDelta >= 0, sendDelta >= 0, arrivalDelta < 5_000_000 else { return }
        accumulatedMs += Double(arrivalDelta - sendDelta) / 1000
        smoothedMs = Self.smoothing * smoothedMs + (1 - Self.smoothing) * accumulatedMs
        if firstArrival < 0 { firstArrival = groupLastArrival }
        xs[next] = Double(groupLastArrival - firstArrival) / 1000
        ys[next] = smoothedMs
        next = (next + 1) % Self.window
        filled = min(filled + 1, Self.window)
        deltas = min(deltas + 1, 60)
        guard filled == Self.window, let slope = Self.slope(xs, ys) else { return }
        detect(trend: slope, atMs: groupLastArrival / 1000, sendDeltaMs: Double(sendDelta) / 1000)
    }

    private mutating func detect(trend: Double, atMs now: Int64, sendDeltaMs: Double) {
        let scaled = Double(deltas) * trend * Self.gain
        if scaled > threshold {
            overuseCount += 1
            // Two groups in a row, and the trend not already easing.
            if overuseCount >= 2, trend >= previousTrend { signal = .overuse }
        } else if scaled < -threshold {
            overuseCount = 0
            signal = .underuse
        } else {
            overuseCount = 0
            signal = .normal
        }
        previousTrend = trend
        adaptThreshold(scaled, atMs: now)
    }

    /// Raises the threshold slowly towards large trends and lowers it quickly, so steady
    /// noise does not read as overuse and a real queue still does.
    private mutating func adaptThreshold(_ scaled: Double, atMs now: Int64) {
        defer { lastThresholdUpdate = now }
        guard lastThresholdUpdate >= 0 else { return }
        if abs(scaled) > threshold + 15 { return }
        let k = abs(scaled) < threshold ? 0.039 : 0.0087
        let elapsed = Double(min(now - lastThresholdUpdate, 100))
        threshold = min(600, max(6, threshold + k * (abs(scaled) - threshold) * elapsed))
    }

    /// Least-squares slope of y on x; nil when every x is the same.
    static func slope(_ xs: [Double], _ ys: [Double]) -> Double? {
        let n = Double(xs.count)
        var sumX = 0.0, sumY = 0.0
        for i in 0..<xs.count { sumX += xs[i]; sumY += ys[i] }
        let meanX = sumX / n, meanY = sumY / n
        var numerator = 0.0, denominator = 0.0
        for i in 0..<xs.count {
            numerator += (xs[i] - meanX) * (ys[i] - meanY)
            denominator += (xs[i] - meanX) * (xs[i] - meanX)
        }
        return denominator == 0 ? nil : numerator / denominator
    }
}
