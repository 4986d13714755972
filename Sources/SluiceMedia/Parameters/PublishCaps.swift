/// A publisher's caps on what it really sends (docs/protocol.md section 6, "Access tokens").
public struct PublishCaps: Sendable, Equatable {
    public var maxWidth: Int?
    public var maxHeight: Int?
    public var maxFps: Int?
    /// Stop it once a cap is exceeded (a FAILED status naming the cap).
    public var stopWhenExceeded: Bool
    /// This publisher's own `rtc.rtpTimeoutSeconds` (a call's stream, whose device must be
    /// missed within seconds: `calls.mediaTimeoutSeconds`); nil: the server's.
    public var rtpTimeoutSeconds: Int?

    public init(maxWidth: Int? = nil, maxHeight: Int? = nil, maxFps: Int? = nil, stopWhenExceeded: Bool = false) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxFps = maxFps
        self.stopWhenExceeded = stopWhenExceeded
    }
}
