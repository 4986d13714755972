/// Work that reaches a worker other than through its sockets and inbox: packets that other
/// workers hand it (cross-worker fan-out). The loop calls `pump` once per turn, after its
/// sockets and timers and before it sends what is queued, on the worker's own thread.
public protocol WorkerInlet: AnyObject {
    /// Takes what waits (bounded per turn) and returns true when more is left, so the loop
    /// comes back at once instead of sleeping.
    func pump(now: UInt64) -> Bool
}
