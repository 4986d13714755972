/// The `calls` part of the config, and an app's call rules.
public struct CallSettings: Sendable, Equatable {
    /// `calls.ringTimeoutSeconds`: a call nobody accepts ends `timedOut` after this.
    public var ringTimeoutSeconds: Int = 60
    /// `calls.reconnectSeconds`: how long a call waits for a device whose session ended.
    public var reconnectSeconds: Int = 2
    /// `calls.perMinute`: calls one session may make in a minute.
    public var perMinute: Int = 30
    /// `calls.mediaTimeoutSeconds`: a call stream's publisher that sends no media for this
    /// long fails, and its call ends `connectionLost` (0: `rtc.rtpTimeoutSeconds` applies).
    public var mediaTimeoutSeconds: Int = 2
    /// How long an ended call is still known (1015 "the call has ended" rather than 1014).
    public var endedCallMemorySeconds: Int = 60

    public init(ringTimeoutSeconds: Int = 60, reconnectSeconds: Int = 2, perMinute: Int = 30) {
        self.ringTimeoutSeconds = ringTimeoutSeconds
        self.reconnectSeconds = reconnectSeconds
        self.perMinute = perMinute
    }
}

/// `apps[].calls`.
public struct AppCallRules: Sendable, Equatable {
    /// False: every call method gets 1002.
    public var enabled = true
    /// A user already in a call may make and get another (no `busy`).
    public var callWaiting = false

    public init(enabled: Bool = true, callWaiting: Bool = false) {
        self.enabled = enabled
        self.callWaiting = callWaiting
    }
}
