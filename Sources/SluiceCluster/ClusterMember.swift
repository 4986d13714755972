import Dispatch
import Foundation
import Synchronization

/// This node's membership of the cluster: a background thread (never the signaling thread)
/// that every `heartbeatMs` writes the node's record with a `ttlMs` TTL, refreshes the
/// node's stream claims and lists the cluster for readers on other threads.
///
/// Redis going away never stops the server: the loss is logged once, the last lists stay
/// readable (marked unreachable), claims fail with a connection error (so callers can refuse
/// cross-node work), and when Redis answers again the node and every claim it still holds
/// are written again, and the recovery is logged once.
public final class ClusterMember: Sendable {
    public struct Settings: Sendable {
        public var url: RedisURL
        public var heartbeatMs = 1000
        /// How long a record outlives its last heartbeat: three heartbeats, so one slow or
        /// lost one does not drop the node.
        public var ttlMs = 3000
        public var connectTimeoutMs = 500
        public var commandTimeoutMs = 500

        public init(url: RedisURL) { self.url = url }
    }

    /// The load figures a heartbeat carries; the server sets them as they change.
    public struct Figures: Sendable, Equatable {
        public var workers = 0
        public var sessions = 0
        public var streams = 0
        public var players = 0
        public init(workers: Int = 0, sessions: Int = 0, streams: Int = 0, players: Int = 0) {
            self.workers = workers
            self.sessions = sessions
            self.streams = streams
            self.players = players
        }
    }

    /// Everything that talks to Redis, behind one lock, so the heartbeat's refresh of a claim
    /// and a release of it can never interleave (which could bring a released name back).
    private struct Lane {
        var registry: ClusterRegistry
        var claims: [String: StreamRecord] = [:]
        /// nil before the first heartbeat; then whether the last one reached Redis.
        var reachable: Bool?
        var lastProblem: String?
    }

    public let settings: Settings
    public let nodeId: String
    private let relayAddress: String
    private let signalingURL: String
    private let log: ClusterLog
    private let lane: Mutex<Lane>
    private let published: Mutex<ClusterSnapshot>
    private let figures: Mutex<Figures>
    private let stopping = Atomic<Bool>(false)
    private let wakeup = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    public init(settings: Settings, nodeId: String, relayAddress: String, signalingURL: String,
                figures: Figures = Figures(), log: ClusterLog = .silent) {
        self.settings = settings
        self.nodeId = nodeId
        self.relayAddress = relayAddress
        self.signalingURL = signalingURL
        self.log = log
        let connection = RedisConnection(url: settings.url, connectTimeoutMs: settings.connectTimeoutMs,
                                         commandTimeoutMs: settings.commandTimeoutMs)
        lane = Mutex(Lane(registry: ClusterRegistry(connection: connection)))
        published = Mutex(ClusterSnapshot())
        self.figures = Mutex(figures)
    }

    /// Starts the heartbeat thread; the first heartbeat runs at once, on that thread.
    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in run() }
        thread.name = "sluice-cluster"
        thread.start()
    }

    /// Stops the thread, then deletes this node's record and releases its claims (when Redis
    /// is there; otherwise they expire with their TTL). Waits at most a few command timeouts.
    public func stop() {
        guard started.load(ordering: .acquiring), !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeup.signal()
        let budget = settings.heartbeatMs + 4 * (settings.connectTimeoutMs + settings.commandTimeoutMs)
        if finished.wait(timeout: .now() + .milliseconds(budget)) == .timedOut {
            log.warn("the heartbeat thread did not stop within \(budget) ms")
        }
    }

    /// The cluster as last seen; never waits for Redis.
    public var snapshot: ClusterSnapshot { published.withLock { $0 } }

    public func setFigures(_ value: Figures) { figures.withLock { $0 = value } }

    /// Claims a stream name cluster-wide for this node (blocking, at most a few command
    /// timeouts). A claimed name is refreshed by every heartbeat until `release`. Throws
    /// when Redis cannot answer: the caller then refuses what needs the cluster.
    public func claim(stream name: String, app: String, layers: [String] = []) throws(RedisError) -> StreamClaim {
        let record = StreamRecord(name: name, app: app, node: nodeId, layers: layers)
        let ttl = settings.ttlMs
        return try lane.withLock { (lane: inout Lane) throws(RedisError) -> StreamClaim in
            let result = try lane.registry.claim(record, ttlMs: ttl)
            if result == .claimed { lane.claims[name] = record }
            return result
        }
    }

    /// Stops refreshing the claim and deletes it if it is still ours. Without Redis it just
    /// stops the refresh, and the claim expires within the TTL.
    public func release(stream name: String) {
        let node = nodeId
        let problem: String? = lane.withLock { lane in
            guard lane.claims.removeValue(forKey: name) != nil else { return nil }
            do {
                try lane.registry.release(stream: name, nodeId: node)
                return nil
            } catch {
                return "\(error)"
            }
        }
        if let problem { log.info("release of \(name) left to its TTL (\(problem))") }
    }

    /// The names this node claims now.
    public var claimedStreams: [String] { lane.withLock { $0.claims.keys.sorted() } }

    // MARK: The thread

    private func run() {
        while !stopping.load(ordering: .acquiring) {
            // The period counts from the start of a heartbeat, so slow commands do not
            // stretch it towards the TTL.
            let next = DispatchTime.now() + .milliseconds(settings.heartbeatMs)
            heartbeat()
            _ = wakeup.wait(timeout: next)
        }
        leave()
        finished.signal()
    }

    /// One heartbeat: register, refresh claims, list. Any failure is caught here; a thread
    /// that threw would stop heartbeating and the node would drop out of the cluster.
    private func heartbeat() {
        let load = figures.withLock { $0 }
        let record = NodeRecord(nodeId: nodeId, relayAddress: relayAddress, signalingURL: signalingURL,
                                workers: load.workers, sessions: load.sessions, streams: load.streams,
                                players: load.players, updatedAtMs: Self.wallClockMs())
        let ttl = settings.ttlMs
        var lines: [(warn: Bool, text: String)] = []
        let url = settings.url
        let outcome: (listed: ClusterSnapshot?, reachable: Bool, problem: String?) = lane.withLock { lane in
            do throws(RedisError) {
                try lane.registry.register(record, ttlMs: ttl)
                for (name, claim) in lane.claims.sorted(by: { $0.key < $1.key }) {
                    switch try lane.registry.refresh(claim, ttlMs: ttl) {
                    case .refreshed: break
                    case .reclaimed: lines.append((false, "claimed \(name) again (its key had gone)"))
                    case .lost(let other):
                        lane.claims.removeValue(forKey: name)
                        lines.append((true, "lost the claim on \(name) to node \(other) while Redis was away"))
                    }
                }
                let nodes = try lane.registry.nodes()
                let streams = try lane.registry.streams()
                let junk = nodes.junk + streams.junk
                let problem = junk > 0 ? "\(junk) key(s) under \(ClusterKeys.prefix) hold no Sluice record; skipped" : nil
                if lane.reachable == false {
                    lines.append((false, "Redis at \(url) is back; node \(nodeId) registered again with \(lane.claims.count) claim(s)"))
                } else if lane.reachable == nil {
                    lines.append((false, "node \(nodeId) registered in Redis at \(url) (TTL \(ttl) ms)"))
                }
                if let problem, problem != lane.lastProblem { lines.append((true, "\(problem)")) }
                lane.reachable = true
                lane.lastProblem = problem
                return (ClusterSnapshot(redisReachable: true, nodes: nodes.nodes, streams: streams.streams,
                                        problem: problem, listedAtMs: Self.wallClockMs()), true, problem)
            } catch {
                let text = "\(error)"
                if error.isConnectionLoss {
                    if lane.reachable != false {
                        lines.append((true, "lost Redis at \(url) (\(text)); serving what this node serves, "
                                      + "new cross-node work refused until it returns"))
                    }
                    lane.reachable = false
                } else if text != lane.lastProblem {
                    lines.append((true, "heartbeat failed: \(text)"))
                }
                lane.lastProblem = text
                return (nil, lane.reachable ?? false, text)
            }
        }
        published.withLock { snapshot in
            if let listed = outcome.listed {
                snapshot = listed
            } else {
                // Keep the last lists: the admin API shows them, marked unreachable.
                snapshot.redisReachable = outcome.reachable
                snapshot.problem = outcome.problem
            }
        }
        for line in lines { line.warn ? log.warn(line.text) : log.info(line.text) }
    }

    /// A clean stop: the node and its claims go at once instead of after the TTL.
    private func leave() {
        let node = nodeId
        let problem: String? = lane.withLock { lane in
            do {
                for name in lane.claims.keys.sorted() { try lane.registry.release(stream: name, nodeId: node) }
                lane.claims.removeAll()
                try lane.registry.deregister(nodeId: node)
                lane.registry.connection.close()
                return nil
            } catch {
                lane.registry.connection.close()
                return "\(error)"
            }
        }
        if let problem {
            log.info("node \(nodeId) left without Redis (\(problem)); its keys expire within \(settings.ttlMs) ms")
        } else {
            log.info("node \(nodeId) left the cluster")
        }
    }

    static func wallClockMs() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
