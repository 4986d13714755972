import Foundation

/// The life of one of the call log's threads (the writers, the PostgreSQL reader): work is
/// handed over under `condition`, the thread waits on it, and `stop` waits until the thread
/// has finished what it had. The owner's own state sits under the same `condition`.
// @unchecked: `running` and `stopping` change only under `condition`, and every reader takes it.
final class CallLogThread: @unchecked Sendable {
    let condition = NSCondition()
    /// Under `condition`: true from `start` until the thread's body returned.
    private(set) var running = false
    /// Under `condition`: set by `stop`; the owner refuses new work from then on.
    private(set) var stopping = false

    /// Runs `body` on a new thread named `name`; `body` returns once `stopping` is set and its
    /// work is done.
    func start(name: String, _ body: @escaping @Sendable () -> Void) {
        condition.lock()
        running = true
        condition.unlock()
        let thread = Thread { [self] in
            body()
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
        }
        thread.name = name
        thread.start()
    }

    /// Takes the lock and waits, holding it again on return, until `hasWork` or a stop.
    func lockForWork(_ hasWork: () -> Bool) {
        condition.lock()
        while !hasWork() && !stopping { condition.wait() }
    }

    /// Sets `stopping` (running `first` under the lock, the first time only), wakes the
    /// thread, and waits until its body returned.
    func stop(first: () -> Void = {}) {
        condition.lock()
        if !stopping {
            stopping = true
            first()
        }
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }
}
