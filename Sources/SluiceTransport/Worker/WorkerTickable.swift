/// Anything that needs the worker's periodic tick.
public protocol WorkerTickable: AnyObject {
    /// Runs the item's timers.
    func tick(now: UInt64)
    /// Asked after each tick: when the item next needs one (`MonotonicClock` microseconds).
    /// The worker calls it again at its first turn at or after that time; turns are
    /// `MediaWorker.tickMicros` apart, and by default an item is ticked at every one. An item
    /// that learns of work sooner (a catch-up starts) calls `MediaWorker.tickSoon`.
    func nextTick(after now: UInt64) -> UInt64
}

extension WorkerTickable {
    public func nextTick(after now: UInt64) -> UInt64 { now + MediaWorker.tickMicros }
}
