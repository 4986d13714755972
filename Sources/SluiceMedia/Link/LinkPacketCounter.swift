import SluiceVocabulary
import Synchronization

/// RTP packets one relay link sent to its edge (forwarded and retransmitted), counted on the
/// link's worker and read by /metrics on any thread: issue 9 wants the relay's cost seen as
/// one copy per stream and edge, not per player (docs/cluster.md, "Relay links").
package final class LinkPacketCounter: Sendable {
    private let count = Atomic<UInt64>(0)

    package init() {}

    /// Worker thread, once per packet sent: a relaxed add, no lock.
    @inline(__always)
    package func add() { count.add(1, ordering: .relaxed) }

    package var value: UInt64 { count.load(ordering: .relaxed) }
}

/// A worker's relay links' packet counts, for reading off the worker: the live links' counters
/// by handle, and what the links removed since the start had sent, so the worker's total never
/// goes down. Changed only when a link comes or goes (control, not per packet).
package final class LinkPacketLedger: Sendable {
    private struct State {
        var live: [StreamHandle: LinkPacketCounter] = [:]
        var retired: UInt64 = 0
    }
    private let state = Mutex(State())

    package init() {}

    func register(_ handle: StreamHandle, _ counter: LinkPacketCounter) {
        state.withLock { $0.live[handle] = counter }
    }

    /// The link is gone from its worker: nothing sends on it any more.
    func retire(_ handle: StreamHandle) {
        state.withLock { state in
            if let counter = state.live.removeValue(forKey: handle) { state.retired &+= counter.value }
        }
    }

    /// Live links counted (a leak test's count).
    package var liveCount: Int { state.withLock { $0.live.count } }

    /// Every packet this worker's links sent, removed links included, and each live link's count.
    package func read() -> (total: UInt64, live: [StreamHandle: UInt64]) {
        state.withLock { state in
            let live = state.live.mapValues(\.value)
            return (live.values.reduce(state.retired, &+), live)
        }
    }
}
