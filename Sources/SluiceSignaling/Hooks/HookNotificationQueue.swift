import Foundation
import SluiceLog

/// One app's notification hooks (`streamStatus`, `streamEvent`, `disconnect`), sent one at a
/// time in the order they were queued, so each stream's (and session's) events reach the
/// backend in order. Best effort: a failed POST is not retried. `enqueue` never blocks on
/// the network; when the backend is slow or down the queue keeps the newest `capacity`
/// requests and drops the oldest, with a warning.
// @unchecked: `waiting`, `head`, `inFlight` and `dropped` are read and written under `lock` only; the rest is `let`.
public final class HookNotificationQueue: @unchecked Sendable {
    public static let defaultCapacity = 1000

    public let capacity: Int
    private let transport: HookTransport
    private let log: Log
    private let lock = NSLock()
    private var waiting: [HookRequest] = []
    private var head = 0
    private var inFlight = false
    private var dropped = 0

    public init(transport: HookTransport, capacity: Int = HookNotificationQueue.defaultCapacity, log: Log) {
        self.transport = transport
        self.capacity = max(1, capacity)
        self.log = log
    }

    /// Requests not yet handed to the transport.
    public var waitingCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return waiting.count - head
    }

    /// Nothing waiting and nothing in flight.
    public var isIdle: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !inFlight
    }

    /// Requests dropped so far because the queue was full.
    public var droppedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return dropped
    }

    public func enqueue(_ request: HookRequest) {
        lock.lock()
        if inFlight {
            var droppedNow: HookRequest?
            if waiting.count - head >= capacity {
                droppedNow = waiting[head]
                head += 1
                dropped += 1
            }
            waiting.append(request)
            compact()
            let total = dropped
            lock.unlock()
            if let droppedNow, total == 1 || total % 100 == 0 {
                log.warn("hooks: backend too slow, queue of \(capacity) full: dropped \(droppedNow.event.rawValue) "
                         + "to \(droppedNow.url) (\(total) dropped so far)")
            }
            return
        }
        inFlight = true
        lock.unlock()
        send(request)
    }

    /// Posts `first`, then whatever is waiting, one at a time. A transport that completes
    /// inside `post` is looped over here rather than recursed into.
    private func send(_ first: HookRequest) {
        var request = first
        while true {
            let post = PostState()
            let sent = request
            transport.post(sent) { [self] outcome in
                if !outcome.allows {
                    log.info("hooks: \(sent.event.rawValue) to \(sent.url): \(outcome)")
                }
                if post.completeAfterReturn(), let next = takeNext() { send(next) }
            }
            guard post.returnAfterCompletion(), let next = takeNext() else { return }
            request = next
        }
    }

    /// The next waiting request, or nil after marking the queue idle.
    private func takeNext() -> HookRequest? {
        lock.lock()
        defer { lock.unlock() }
        guard head < waiting.count else {
            inFlight = false
            return nil
        }
        let next = waiting[head]
        head += 1
        compact()
        return next
    }

    /// Lock held. Drops consumed slots once they outweigh the live ones.
    private func compact() {
        if head > 64 && head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
    }
}

/// Which came first for one POST: `post` returning, or its completion.
// @unchecked: `returned` and `completed` are read and written under `lock` only.
private final class PostState: @unchecked Sendable {
    private let lock = NSLock()
    private var returned = false
    private var completed = false

    /// From the completion: true when `post` has already returned (the completion goes on).
    func completeAfterReturn() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        completed = true
        return returned
    }

    /// From the poster: true when the completion already ran (the poster goes on).
    func returnAfterCompletion() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        returned = true
        return completed
    }
}
