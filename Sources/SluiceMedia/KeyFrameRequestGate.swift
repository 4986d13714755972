/// When one layer of a publisher may be asked for a key frame (PLI) again.
///
/// A request stays outstanding until a key frame arrives, so a burst of players joining or
/// switching costs the publisher one key frame, not one each. A player that comes after that
/// key frame is asked for at once rather than after a fixed interval: with a flat 300 ms
/// throttle, a player joining soon after the publisher waited about 300 ms for its first
/// frame. Requests are still spaced by `minimumSpacingMicros`, which bounds the key frames
/// a stream of joiners can cost, and an unanswered request (a lost PLI, or a publisher that
/// ignored it) is repeated after `retryMicros`.
struct KeyFrameRequestGate {
    static let minimumSpacingMicros: UInt64 = 100_000
    static let retryMicros: UInt64 = 300_000

    private var lastRequest: UInt64?
    private var outstanding = false

    /// True when a request should go now; the caller then sends it.
    mutating func shouldRequest(now: UInt64) -> Bool {
        if let lastRequest {
            let since = now &- lastRequest
            if since < Self.minimumSpacingMicros { return false }
            if outstanding && since < Self.retryMicros { return false }
        }
        lastRequest = now
        outstanding = true
        return true
    }

    /// A key frame arrived: whoever asked has it.
    mutating func keyFrameArrived() {
        outstanding = false
    }
}
