/// When one layer of a publisher may be asked for a key frame (PLI) again.
///
/// A request stays outstanding until a key frame arrives, so a burst of players joining or
/// switching costs the publisher one key frame, not one each. A player that comes after that
/// key frame is asked for at once rather than after a fixed interval: with a flat 300 ms
/// throttle, a player joining soon after the publisher waited about 300 ms for its first
/// frame. Requests are still spaced by `minimumSpacingMicros`, which bounds the key frames
/// a stream of joiners can cost, and an unanswered request (a lost PLI, or a publisher that
/// ignored it) is repeated after `retryMicros`.
///
/// A browser ignores a request that comes within 300 ms of the last one it answered
/// (libwebrtc's `EncoderRtcpFeedback`). So a request sent inside that window after an answered
/// one is repeated as soon as the window has passed, not a full `retryMicros` after it.
struct KeyFrameRequestGate {
    static let minimumSpacingMicros: UInt64 = 100_000
    static let retryMicros: UInt64 = 300_000
    /// libwebrtc's 300 ms, plus a margin for the path and its clock.
    static let publisherWindowMicros: UInt64 = 320_000

    private var lastRequest: UInt64?
    private var outstanding = false
    /// When the last request that a key frame answered was sent.
    private var lastAnswered: UInt64?

    /// True when a request should go now; the caller then sends it.
    mutating func shouldRequest(now: UInt64) -> Bool {
        if let lastRequest {
            let since = now &- lastRequest
            if since < Self.minimumSpacingMicros { return false }
            if outstanding {
                var due = lastRequest &+ Self.retryMicros
                if let lastAnswered, lastRequest &- lastAnswered < Self.publisherWindowMicros {
                    due = min(due, lastAnswered &+ Self.publisherWindowMicros)
                }
                if now < due { return false }
            }
        }
        lastRequest = now
        outstanding = true
        return true
    }

    /// A key frame arrived: whoever asked has it.
    mutating func keyFrameArrived() {
        if outstanding { lastAnswered = lastRequest }
        outstanding = false
    }
}
