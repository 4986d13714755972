import Foundation
import SluiceJSON
import SluiceJSONParser
@testable import SluiceSignaling
import Testing
import SluiceLog

/// Records every hook POST and completes it only when a test says so.
final class FakeHookTransport: HookTransport, @unchecked Sendable {
    struct Post {
        var request: HookRequest
        var completion: @Sendable (HookOutcome) -> Void
    }

    private let lock = NSLock()
    private var posts: [Post] = []
    private var completed: Set<Int> = []
    /// Answers every POST at once, inside `post`, when set.
    var immediateOutcome: HookOutcome?

    func post(_ request: HookRequest, completion: @escaping @Sendable (HookOutcome) -> Void) {
        lock.lock()
        posts.append(Post(request: request, completion: completion))
        let index = posts.count - 1
        let immediate = immediateOutcome
        if immediate != nil { completed.insert(index) }
        lock.unlock()
        if let immediate { completion(immediate) }
    }

    /// Every request posted so far, in order.
    var requests: [HookRequest] {
        lock.lock()
        defer { lock.unlock() }
        return posts.map(\.request)
    }

    var events: [HookEvent] { requests.map(\.event) }

    /// Indexes of posts not yet completed.
    var pending: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return posts.indices.filter { !completed.contains($0) }
    }

    /// Completes the oldest pending POST of `event` (any event when nil) whose body has
    /// `sessionId` (any when nil). False if none.
    @discardableResult
    func complete(_ event: HookEvent? = nil, sessionID: String? = nil, with outcome: HookOutcome) -> Bool {
        lock.lock()
        guard let index = posts.indices.first(where: {
            !completed.contains($0) && (event == nil || posts[$0].request.event == event)
                && (sessionID == nil || (try? JSONValue.parse(posts[$0].request.body))?["sessionId"]?.stringValue == sessionID)
        }) else {
            lock.unlock()
            return false
        }
        completed.insert(index)
        let completion = posts[index].completion
        lock.unlock()
        completion(outcome)
        return true
    }

    /// Completes pending notification POSTs (and those they release) until none is left.
    func settleNotifications(with outcome: HookOutcome = .status(200)) {
        while let index = pending.first(where: { !requests[$0].event.authorizes }) {
            complete(requests[index].event, with: outcome)
        }
    }

    /// Parsed bodies of every request of `event`.
    func bodies(_ event: HookEvent? = nil) -> [JSONValue] {
        requests.filter { event == nil || $0.event == event }.compactMap { try? JSONValue.parse($0.body) }
    }
}

@Suite struct HookNotificationQueueTests {
    func request(_ n: Int) -> HookRequest {
        HookRequest(event: .streamStatus, url: "http://127.0.0.1:9/streamStatus", body: Array("\(n)".utf8),
                    headers: [], timeoutMs: 100)
    }

    func numbers(_ requests: [HookRequest]) -> [Int] {
        requests.compactMap { Int(String(decoding: $0.body, as: UTF8.self)) }
    }

    @Test func sendsOneAtATimeInOrder() {
        let transport = FakeHookTransport()
        let queue = HookNotificationQueue(transport: transport, capacity: 10, log: Log(level: .error))
        for n in 1...4 { queue.enqueue(request(n)) }
        #expect(numbers(transport.requests) == [1])
        #expect(queue.waitingCount == 3)
        transport.complete(with: .status(200))
        #expect(numbers(transport.requests) == [1, 2])
        // A failure does not stop the queue: best effort, no retry.
        transport.complete(with: .failed("refused"))
        transport.complete(with: .timedOut)
        #expect(numbers(transport.requests) == [1, 2, 3, 4])
        transport.complete(with: .status(500))
        #expect(transport.pending.isEmpty)
        #expect(queue.waitingCount == 0)
        // Idle again: the next one goes out at once.
        queue.enqueue(request(5))
        #expect(numbers(transport.requests) == [1, 2, 3, 4, 5])
    }

    @Test func fullQueueDropsTheOldest() {
        let transport = FakeHookTransport()
        let lines = LockedLines()
        let queue = HookNotificationQueue(transport: transport, capacity: 3,
                                          log: Log(level: .warn, sink: { lines.append($0) }))
        for n in 1...7 { queue.enqueue(request(n)) }
        // 1 is in flight; 2, 3 and 4 were dropped for 5, 6 and 7.
        #expect(queue.droppedCount == 3)
        #expect(queue.waitingCount == 3)
        transport.settleNotifications()
        #expect(numbers(transport.requests) == [1, 5, 6, 7])
        #expect(lines.all.contains { $0.contains("dropped streamStatus") && $0.contains("queue of 3 full") })
    }

    @Test func transportThatAnswersInsidePostDoesNotRecurse() {
        let transport = FakeHookTransport()
        let queue = HookNotificationQueue(transport: transport, capacity: 50_000, log: Log(level: .error))
        for n in 1...20_000 { queue.enqueue(request(n)) }
        #expect(queue.waitingCount == 19_999)
        // From here on every POST completes inside `post`: the backlog drains in a loop.
        transport.immediateOutcome = .status(200)
        transport.complete(with: .status(200))
        #expect(numbers(transport.requests) == Array(1...20_000))
        #expect(queue.waitingCount == 0)
    }
}

final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}
