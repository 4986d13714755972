/// The control-plane face of the media side. Called from one control thread (the
/// signaling service thread). Registry decisions (1003, 1004) and SDP negotiation happen
/// here synchronously, so `publish` and `play` return the answer at once; what happens
/// later on the media workers arrives as `MediaEvent`s.
///
/// Event delivery: the engine queues events from any thread and calls `wakeup`; the
/// control thread then calls `drainEvents`. A reply to a request is therefore always
/// sent before the notifications it causes (PROTOCOL.md "Order").
public final class MediaEngine {
    /// Called from any thread when events are waiting. Must be cheap and non-blocking.
    public var wakeup: @Sendable () -> Void = {}

    public init() {}

    public func publish(_ request: PublishRequest) throws(MediaError) -> MediaAnswer {
        throw .limitReached("media engine not started")
    }

    public func play(_ request: PlayRequest) throws(MediaError) -> MediaAnswer {
        throw .limitReached("media engine not started")
    }

    /// The handle's own `stop` ("Stopped by user").
    public func stop(handle: StreamHandle) throws(MediaError) {
        throw .unknownHandle
    }

    public func stats(handle: StreamHandle) throws(MediaError) -> HandleStats {
        throw .unknownHandle
    }

    /// Asks the publisher for a key frame on behalf of a player, or throws.
    public func requestKeyFrame(handle: StreamHandle) throws(MediaError) {
        throw .unknownHandle
    }

    /// Ends every handle of a session ("Stopped by session disconnect"); the players of
    /// its streams get UNPUBLISHED "Stopped by publisher stop".
    public func endSession(_ session: SessionID) {}

    /// Hands every queued event to `body`, in order, on the caller's thread.
    public func drainEvents(_ body: (MediaEvent) -> Void) {}

    /// Stops all workers after ending every handle. Events for the endings are queued first.
    public func shutdown() {}
}
