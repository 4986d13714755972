import Dispatch
import Foundation
import Synchronization

/// The audio levels of every node's streams, for the active speaker across the cluster
/// (docs/cluster.md, "Speakers across nodes"): a thread of its own, with its own Redis
/// connection, that every `periodMs` writes this node's levels (`sluice:levels:<nodeId>`,
/// with a TTL of a few periods) and reads the other live nodes' with one MGET.
///
/// Its own thread and link, not the heartbeat's: the heartbeat's period (500 ms) would be
/// most of a speaker hand-over's latency, and its commands would wait behind a listing.
/// Redis going away is logged once; the levels then stop flowing until it returns.
public final class LevelExchange: Sendable {
    public let periodMs: Int
    private let nodeId: String
    private let member: ClusterMember
    private let log: ClusterLog
    private let connection: Mutex<RedisConnection>
    /// This node's levels as last handed over, and whether Redis has them.
    private let local = Mutex<(entries: [LevelRecord.Entry], written: Bool)>(([], true))
    private let listener = Mutex<(@Sendable ([LevelRecord]) -> Void)?>(nil)
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// `periodMs`: 50 by default, so a level crosses nodes in about 50 ms on average (a write
    /// and a read, each on its node's own period), against a hand-over of about 750 ms.
    public init(member: ClusterMember, periodMs: Int = 50, log: ClusterLog = .silent) {
        self.member = member
        nodeId = member.nodeId
        self.periodMs = max(10, periodMs)
        self.log = log
        let settings = member.settings
        connection = Mutex(RedisConnection(url: settings.url, connectTimeoutMs: settings.connectTimeoutMs,
                                           commandTimeoutMs: settings.commandTimeoutMs))
    }

    /// Any thread: this node's streams' levels now (all of them; an empty list deletes the key).
    public func setLocal(_ entries: [LevelRecord.Entry]) {
        local.withLock { if $0.entries != entries { $0 = (entries, false) } }
    }

    /// Called on the exchange's thread with the other live nodes' records after each read
    /// (nodes without levels left out). It must return quickly: hand over, never wait.
    public func onRemote(_ body: (@Sendable ([LevelRecord]) -> Void)?) { listener.withLock { $0 = body } }

    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in run() }
        thread.name = "sluice-levels"
        thread.start()
    }

    /// Stops the thread and deletes this node's key (when Redis is there).
    public func stop() {
        guard started.load(ordering: .acquiring), !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let settings = member.settings
        _ = finished.wait(timeout: .now() + .milliseconds(periodMs + 4 * (settings.connectTimeoutMs + settings.commandTimeoutMs)))
    }

    private static func key(_ node: String) -> String { "sluice:levels:" + node }

    /// A second at least: a node that stops writing (it died, or its streams went) drops out
    /// soon, and a write that waits behind a slow command does not let the key lapse.
    private var ttlMs: Int { max(1000, periodMs * 10) }

    private func run() {
        // An outage is logged once at its start (its errors change as Redis goes: the link
        // closed, then connections refused), and once at its end.
        var failing = false
        while !stopping.load(ordering: .acquiring) {
            let next = DispatchTime.now() + .milliseconds(periodMs)
            let problem = exchange()
            if let problem, !failing {
                log.warn("audio levels: \(problem); they stop crossing nodes until Redis answers")
            } else if problem == nil, failing {
                log.info("audio levels: Redis answers again")
            }
            failing = problem != nil
            let wait = next.uptimeNanoseconds > DispatchTime.now().uptimeNanoseconds
                ? next.uptimeNanoseconds - DispatchTime.now().uptimeNanoseconds : 0
            if wait > 0 { usleep(UInt32(min(wait / 1000, UInt64(UInt32.max)))) }
        }
        connection.withLock { redis in
            _ = try? redis.command(["DEL", Self.key(nodeId)])
            redis.close()
        }
        finished.signal()
    }

    /// One period: write this node's levels (again, for the TTL, while there are any), read
    /// the others'. Returns the problem, if any; a failure never stops the thread.
    private func exchange() -> String? {
        let (entries, written) = local.withLock { $0 }
        let others = member.snapshot.nodes.map(\.nodeId).filter { $0 != nodeId }.sorted()
        let node = nodeId
        let ttl = ttlMs
        let outcome: Result<[LevelRecord], RedisError> = connection.withLock { redis in
            do throws(RedisError) {
                if !entries.isEmpty {
                    let record = LevelRecord(node: node, entries: entries)
                    try redis.command(bytes: [Array("SET".utf8), Array(Self.key(node).utf8), record.json.serializedBytes(),
                                              Array("PX".utf8), Array(String(ttl).utf8)])
                } else if !written {
                    try redis.command(["DEL", Self.key(node)])
                }
                guard !others.isEmpty else { return .success([]) }
                let reply = try redis.command(["MGET"] + others.map(Self.key))
                let records = (reply.elements ?? []).compactMap { value -> LevelRecord? in
                    guard case .string(let bytes) = value else { return nil }
                    return LevelRecord(bytes: bytes)
                }
                return .success(records)
            } catch {
                redis.close()
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let records):
            local.withLock { if $0.entries == entries { $0.written = true } }
            if let body = listener.withLock({ $0 }) { body(records) }
            return nil
        case .failure(let error):
            return "\(error)"
        }
    }
}
