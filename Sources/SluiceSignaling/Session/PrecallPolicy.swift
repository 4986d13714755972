/// An app's pre-call test rules (`apps[].precall`; docs/protocol.md section 6, "Pre-call test").
public struct PrecallPolicy: Sendable, Equatable {
    /// Tests the app may start in any minute, over every session and `POST /precall`.
    public var perMinute: Int = 30
    /// How long a test measures when the request names no `seconds`.
    public var seconds: Int = 8
    /// The downlink probe's ceiling (kbit/s).
    public var maxKbps: Int = 10_000

    public static let maxSeconds = 10

    public init(perMinute: Int = 30, seconds: Int = 8, maxKbps: Int = 10_000) {
        self.perMinute = perMinute
        self.seconds = seconds
        self.maxKbps = maxKbps
    }
}

/// How many pre-call tests each app started in the last minute: a sliding window of start
/// times, at most `perMinute` long per app (signaling thread only).
struct PrecallRateLimiter {
    private var starts: [String: [UInt64]] = [:]

    /// Apps with a start in the window (a leak test's count).
    var appCount: Int { starts.count }

    /// Whether the app may start one now; does not count it.
    mutating func allows(app: String, perMinute: Int, now: UInt64) -> Bool {
        let recent = (starts[app] ?? []).filter { now < $0 + 60_000_000 }
        starts[app] = recent.isEmpty ? nil : recent
        return recent.count < perMinute
    }

    mutating func started(app: String, now: UInt64) {
        starts[app, default: []].append(now)
    }
}
