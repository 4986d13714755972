import SluiceVocabulary
import Synchronization

/// The latest stats of every handle, written by workers about once a second and read by the
/// control thread for `getStats` and the REST API, so that a read never waits on a worker.
package final class StatsBoard: Sendable {
    private let entries = Mutex<[StreamHandle: HandleStats]>([:])

    package init() {}

    package func publish(_ stats: HandleStats) {
        entries.withLock { $0[stats.handle] = stats }
    }

    package func snapshot(_ handle: StreamHandle) -> HandleStats? {
        entries.withLock { $0[handle] }
    }

    package func remove(_ handle: StreamHandle) {
        entries.withLock { $0[handle] = nil }
    }

    /// Handles with a snapshot (a leak test's count).
    package var count: Int { entries.withLock { $0.count } }

    package func all() -> [HandleStats] {
        entries.withLock { Array($0.values) }
    }
}
