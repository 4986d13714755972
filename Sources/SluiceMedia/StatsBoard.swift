import Synchronization

/// The latest stats of every handle, written by workers about once a second and read by the
/// control thread for `getStats` and the REST API, so that a read never waits on a worker.
final class StatsBoard: @unchecked Sendable {
    private let entries = Mutex<[StreamHandle: HandleStats]>([:])

    func publish(_ stats: HandleStats) {
        entries.withLock { $0[stats.handle] = stats }
    }

    func snapshot(_ handle: StreamHandle) -> HandleStats? {
        entries.withLock { $0[handle] }
    }

    func remove(_ handle: StreamHandle) {
        entries.withLock { $0[handle] = nil }
    }

    func all() -> [HandleStats] {
        entries.withLock { Array($0.values) }
    }
}
