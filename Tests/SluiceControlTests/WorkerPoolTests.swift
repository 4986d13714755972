@testable import SluiceControl
import SluiceVocabulary
import Synchronization
import Testing

/// Where the pool puts things: a stream's home from its name alone, a new handle on the
/// least-loaded worker, the candidates an answer names; and the queues between the threads.
@Suite(.serialized) final class WorkerPoolTests {
    let parts: ControlParts
    var pool: WorkerPool { parts.pool }

    init() throws {
        parts = try ControlParts(workers: 3, announcedAddresses: ["127.0.0.1", "127.0.0.5"])
    }

    deinit { parts.stop() }

    final class Wakes: Sendable {
        let count = Atomic<Int>(0)
    }

    /// The home comes from the name, so players waiting for a name are placed knowing where
    /// its publisher will be.
    @Test func aStreamsHomeComesFromItsName() {
        let homes = ["cam", "mic", "screen", "a", "b", "c"].map(pool.home)
        #expect(homes.allSatisfy { (0..<3).contains($0) })
        #expect(homes == ["cam", "mic", "screen", "a", "b", "c"].map(pool.home))
        #expect(Set(homes).count > 1)
    }

    @Test func aNewHandleGoesToTheLeastLoadedWorker() {
        #expect(pool.leastLoaded(handlesOn: []) == 0)
        #expect(pool.leastLoaded(handlesOn: [0, 0, 1]) == 2)
        #expect(pool.leastLoaded(handlesOn: [0, 1, 2, 2]) == 0, "the first of those tied")
    }

    @Test func everyAnnouncedAddressIsACandidate() {
        let candidates = pool.candidates(worker: 1)
        #expect(candidates.map(\.ip) == ["127.0.0.1", "127.0.0.5"])
        #expect(candidates.allSatisfy { $0.port == Int(self.pool.workers[1].localAddress.port) && $0.transport == "udp" })
    }

    /// Each worker's tables, read on its thread and summed over the workers.
    @Test func tablesAreReadOnEachWorker() {
        let sizes = pool.tableSizes(timeout: 2)
        #expect(sizes["streams.producers"] == 0 && sizes["workers.unanswered"] == nil)
    }

    /// Events from other threads wake the control thread and are taken in order; the outbox
    /// keeps the control thread's own in order too.
    @Test func theQueuesKeepTheirOrder() async {
        let outbox = Outbox()
        let wakes = Wakes()
        outbox.wakeup = { wakes.count.add(1, ordering: .relaxed) }
        let inbox = Inbox<Int>(wake: { [weak outbox] in outbox?.wake() })
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for i in 0..<100 { inbox.push(i) } }
        }
        #expect(inbox.count == 100 && wakes.count.load(ordering: .relaxed) == 100)
        #expect(inbox.takeAll() == Array(0..<100) && inbox.count == 0)
        outbox.post(.precall(session: "s", handle: "h1", type: "a", data: [:], ends: false))
        outbox.post(.precall(session: "s", handle: "h2", type: "b", data: [:], ends: true))
        #expect(outbox.count == 2 && wakes.count.load(ordering: .relaxed) == 102)
        let taken = outbox.takeAll().compactMap { if case .precall(_, let handle, _, _, _) = $0 { return handle } else { return nil } }
        #expect(taken == ["h1", "h2"] && outbox.count == 0)
    }
}
