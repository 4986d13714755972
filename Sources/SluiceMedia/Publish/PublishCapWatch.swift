/// Watches what a publisher's top layer really sends against its caps (the app's and its
/// token's `maxWidth`, `maxHeight`, `maxFps`), since a client may declare anything. A cap
/// counts as exceeded once the layer has stayed over it for `holdMicros` (5 s), so one odd
/// second does not trip it; it is reported once, and again only after the layer came back
/// within it. Fed once a second from the producer's tick.
struct PublishCapWatch {
    typealias Limit = PublishLimit

    /// A cap that has just been exceeded for the whole hold time.
    struct Exceeded: Equatable {
        var limit: Limit
        var value: Int
        var max: Int
    }

    static let holdMicros: UInt64 = 5_000_000
    /// Measured frame rates wobble around the encoder's; over 1.1 times the cap is over it
    /// (the same margin as a player's `fps`).
    static let fpsMargin = 1.1

    let caps: PublishCaps
    /// Since when each limit has been over, and whether that spell was reported.
    private var overSince: [Limit: UInt64] = [:]
    private var reported: Set<Limit> = []

    init(caps: PublishCaps) {
        self.caps = caps
    }

    /// The top layer's size and measured frame rate now; returns the caps that have just
    /// become exceeded. A layer with no size yet (no key frame) is not judged on size.
    mutating func observe(width: Int, height: Int, fps: Double, now: UInt64) -> [Exceeded] {
        var out: [Exceeded] = []
        for limit in Limit.allCases {
            let cap: Int?
            let value: Int
            let over: Bool
            switch limit {
            case .maxWidth:
                cap = caps.maxWidth; value = width; over = cap.map { width > $0 } ?? false
            case .maxHeight:
                cap = caps.maxHeight; value = height; over = cap.map { height > $0 } ?? false
            case .maxFps:
                cap = caps.maxFps; value = Int(fps.rounded()); over = cap.map { fps > Double($0) * Self.fpsMargin } ?? false
            }
            guard let cap, over else {
                overSince[limit] = nil
                reported.remove(limit)
                continue
            }
            let since = overSince[limit] ?? now
            overSince[limit] = since
            if now - since >= Self.holdMicros, !reported.contains(limit) {
                reported.insert(limit)
                out.append(Exceeded(limit: limit, value: value, max: cap))
            }
        }
        return out
    }
}
