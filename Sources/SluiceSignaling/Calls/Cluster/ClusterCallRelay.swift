import Foundation
import SluiceCalls
import SluiceVocabulary
import Synchronization

/// This node's part in calls that cross nodes (docs/cluster.md, "Calls across nodes"), owned by
/// the session layer when the server is a cluster node: the mirrors of calls homed elsewhere,
/// the presence last handed to the cluster, the last presence taken from it, and the answers of
/// other nodes waiting for the service thread. Everything but `arrivals` is the service
/// thread's.
final class ClusterCallRelay {
    let cluster: CallCluster
    let mirrors: CallMirrors
    /// What this node last handed over as its presence, sorted.
    var publishedPresence: [RemoteSession] = []
    /// The cluster presence version last taken into the call book.
    var takenVersion: Int?
    /// When this node's presence was last computed (monotonic µs), and whether something
    /// changed it since (a session came or went, a call's effects ran).
    var presenceComputedAt: UInt64 = 0
    var presenceDirty = true
    /// At most this often while nothing marks it dirty: a call's start or end on another
    /// node's book reaches this node's presence through the mirrors within it.
    static let presenceMicros: UInt64 = 100_000

    /// A method sent to a call's home, waiting for its answer: the parked request's token.
    struct Pending {
        var method: String
        var callID: String
        var sdp: String?
        var session: SessionID
    }
    var pending: [UInt64: Pending] = [:]

    typealias Arrival = (token: UInt64, result: Result<ClusterCallReply, ClusterCallFailure>)
    /// Filled by the senders' threads, taken on the service thread.
    private let arrivals = Inbox<Arrival>()
    private let failures = Inbox<String>()

    init(cluster: CallCluster, monoMicros: @escaping () -> UInt64, endedCallMemorySeconds: Int) {
        self.cluster = cluster
        mirrors = CallMirrors(monoMicros: monoMicros, endedCallMemorySeconds: endedCallMemorySeconds)
    }

    var nodeID: String { cluster.nodeID }

    /// Sends `messages` to `node`; a failure is only logged (the home's presence sync, or the
    /// death of a node, settles what a lost message leaves open).
    func send(_ messages: [ClusterCallMessage], to node: String, wake: @escaping @Sendable () -> Void) {
        guard !messages.isEmpty else { return }
        cluster.send(messages, to: node) { [failures] result in
            guard case .failure(let failure) = result else { return }
            failures.add("calls to node \(node): \(failure.message)")
            wake()
        }
    }

    /// Sends a session's method to the call's home; its answer comes back as an arrival.
    func ask(_ home: String, _ message: ClusterCallMessage, token: UInt64, wake: @escaping @Sendable () -> Void) {
        cluster.send([message], to: home) { [arrivals] result in
            arrivals.add((token, result))
            wake()
        }
    }

    /// The answers that came since the last call (service thread).
    func takeArrivals() -> [Arrival] { arrivals.take() }

    func takeFailures() -> [String] { failures.take() }

    var tableSizes: [String: Int] {
        ["callRelay.mirrors": mirrors.mirrors.count, "callRelay.pending": pending.count,
         "callRelay.presence": publishedPresence.count, "callRelay.arrivals": arrivals.count]
    }
}

/// A queue other threads add to and one thread takes everything from.
final class Inbox<Item>: @unchecked Sendable {
    // @unchecked: `items` is touched only under `lock`; an item passes from the adding thread
    // to the taking one, which alone uses it after (the items are not Sendable: closures that
    // capture the service thread's objects, to run there).
    private let lock = NSLock()
    private var items: [Item] = []

    func add(_ item: Item) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }

    func take() -> [Item] {
        lock.lock()
        defer { lock.unlock() }
        let taken = items
        items.removeAll()
        return taken
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return items.count
    }
}
