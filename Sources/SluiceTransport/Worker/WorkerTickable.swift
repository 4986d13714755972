/// Anything that needs the worker's periodic tick.
public protocol WorkerTickable: AnyObject {
    func tick(now: UInt64)
}
