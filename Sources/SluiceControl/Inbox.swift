import Synchronization

/// What another thread hands the control thread (a worker's events, the recorder's, the SCTP
/// stack's, the cluster's answers to link requests): queued under a lock, the control thread
/// woken, and taken all at once by `MediaEngine.drainEvents`.
final class Inbox<Event: Sendable>: Sendable {
    private let queue = Mutex<[Event]>([])
    private let wake: @Sendable () -> Void

    /// `wake` tells the control thread; it is called after the event is queued.
    init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// Any thread.
    func push(_ event: Event) {
        queue.withLock { $0.append(event) }
        wake()
    }

    /// Control thread: everything queued so far, in order.
    func takeAll() -> [Event] {
        queue.withLock { queue in
            let taken = queue
            queue.removeAll()
            return taken
        }
    }

    var count: Int { queue.withLock { $0.count } }
}
