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
        /// Every heartbeat writes the node record, refreshes the claims and lists the cluster;
        /// other nodes see a dead node within `ttlMs` plus one of their heartbeats.
        public var heartbeatMs = 500
        /// How long the node record outlives its last heartbeat: four heartbeats, so a slow or
        /// lost one does not drop the node, and short enough that the players of a dead origin
        /// on other nodes are told within 3 s of its death (docs/cluster.md, "Faults").
        public var ttlMs = 2000
        /// How long a stream claim outlives its last refresh (each heartbeat). Longer than
        /// `ttlMs`: a node whose heartbeats stall for a few seconds keeps its live names (a
        /// lost claim would let another node publish one of them meanwhile), and every other
        /// node sees a dead origin gone (its node record) before its names are free again.
        public var claimTtlMs = 5000
        public var connectTimeoutMs = 500
        public var commandTimeoutMs = 500
        /// The claim lane's connect and command timeouts: claims come from the signaling
        /// thread, which waits behind at most one refresh and then its own command, and not
        /// at all while Redis is known to be unreachable (docs/cluster.md, "Threads").
        public var claimTimeoutMs = 200

        public init(url: RedisURL) { self.url = url }
    }

    /// The load figures a heartbeat carries; the server sets them as they change.
    public struct Figures: Sendable, Equatable {
        public var workers = 0
        public var sessions = 0
        public var streams = 0
        public var players = 0
        /// Set once by a drain, never cleared: the process ends after it.
        public var draining = false
        public init(workers: Int = 0, sessions: Int = 0, streams: Int = 0, players: Int = 0) {
            self.workers = workers
            self.sessions = sessions
            self.streams = streams
            self.players = players
        }
    }

    /// The heartbeat's own connection (register and list), used only by its thread. Claims,
    /// their refreshes and releases go through `claimLane` instead (ClaimLane.swift).
    private struct Lane {
        var registry: ClusterRegistry
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
    let claimLane: Mutex<ClaimLane>
    private let health = Atomic<UInt8>(RedisHealth.unknown.rawValue)
    /// How many times the heartbeat found Redis gone (ClaimLane.dropStaleLink).
    let outages = Atomic<Int>(0)
    private let published: Mutex<ClusterSnapshot>
    /// Codecs of claimed names, handed over by `setCodecs` and written into the claim's record
    /// by the next refresh (the heartbeat's), so the caller never waits for Redis.
    private let pendingCodecs = Mutex<[String: RecordCodecs]>([:])
    private let figures: Mutex<Figures>
    /// This node's presence as last handed over, and whether Redis has that version.
    let presence = Mutex<(record: PresenceRecord?, written: Bool)>((nil, true))
    /// Listings so far (the snapshot's `serial`).
    private let listings = Atomic<Int>(0)
    private let snapshotListener = Mutex<(@Sendable () -> Void)?>(nil)
    private let stopping = Atomic<Bool>(false)
    let wakeup = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    let started = Atomic<Bool>(false)

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
        let claimConnection = RedisConnection(url: settings.url, connectTimeoutMs: settings.claimTimeoutMs,
                                              commandTimeoutMs: settings.claimTimeoutMs)
        claimLane = Mutex(ClaimLane(registry: ClusterRegistry(connection: claimConnection)))
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

    public func setFigures(_ value: Figures) {
        figures.withLock { figures in
            let draining = figures.draining
            figures = value
            figures.draining = figures.draining || draining
        }
    }

    /// The next heartbeat (and every one after it) says this node drains.
    public func setDraining() { figures.withLock { $0.draining = true } }

    /// Called on the heartbeat thread after each heartbeat has set the snapshot (reached Redis
    /// or not), so a reader can act on a dead node at once instead of polling. It must return
    /// quickly (it delays the next heartbeat): wake another thread, never wait.
    public func onSnapshot(_ listener: (@Sendable () -> Void)?) { snapshotListener.withLock { $0 = listener } }

    /// True when the last command this node sent Redis (a heartbeat's or a claim's) failed on
    /// the link; a heartbeat that reaches Redis makes it false again.
    public var redisKnownUnreachable: Bool { health.load(ordering: .acquiring) == RedisHealth.unreachable.rawValue }

    /// Claims a stream name cluster-wide for this node, on the claim lane: it waits behind at
    /// most one refresh, then makes its own command (each bounded by `claimTimeoutMs`, plus
    /// a connect), and not at all while Redis is known to be unreachable (it throws a
    /// connection error at once; the next heartbeat that reaches Redis lifts that). A claimed name is refreshed by every
    /// heartbeat until `release`. Throws when Redis cannot answer: the caller then refuses
    /// what needs the cluster.
    public func claim(stream name: String, app: String, layers: [String] = []) throws(RedisError) -> StreamClaim {
        if redisKnownUnreachable { throw .connection(Self.knownUnreachable) }
        // A claim after `stop()` released the others would outlive the node by its TTL.
        if stopping.load(ordering: .acquiring) { throw .connection("this node is leaving the cluster") }
        let record = StreamRecord(name: name, app: app, node: nodeId, layers: layers)
        // Codecs of an earlier publisher of the name are not this one's.
        pendingCodecs.withLock { _ = $0.removeValue(forKey: name) }
        let ttl = settings.claimTtlMs
        do {
            let outages = self.outages.load(ordering: .acquiring)
            let result = try claimLane.withLock { (lane: inout ClaimLane) throws(RedisError) -> StreamClaim in
                // A refresh this claim waited for may just have found Redis gone: do not wait again.
                if redisKnownUnreachable { throw .connection(Self.knownUnreachable) }
                lane.dropStaleLink(outages: outages)
                let result = try lane.run { (registry) throws(RedisError) in try registry.claim(record, ttlMs: ttl) }
                if result == .claimed { lane.claims[name] = record }
                return result
            }
            health.store(RedisHealth.reachable.rawValue, ordering: .releasing)
            return result
        } catch {
            noteFailure(error)
            throw error
        }
    }

    static let knownUnreachable = "Redis is unreachable (the last command to it failed)"

    /// Marks Redis unreachable when `error` is the link's, so claims after it fail at once.
    func noteFailure(_ error: RedisError) {
        if error.isConnectionLoss { health.store(RedisHealth.unreachable.rawValue, ordering: .releasing) }
    }

    /// Stops refreshing the claim and deletes it if it is still ours. Without Redis (or while
    /// it is known to be unreachable) it just stops the refresh, and the claim expires within
    /// the TTL.
    public func release(stream name: String) {
        pendingCodecs.withLock { _ = $0.removeValue(forKey: name) }
        let node = nodeId
        let skip = redisKnownUnreachable
        let outages = self.outages.load(ordering: .acquiring)
        let problem = claimLane.withLock { (lane: inout ClaimLane) -> String? in
            guard lane.claims.removeValue(forKey: name) != nil else { return nil }
            if skip { return "Redis is unreachable" }
            lane.dropStaleLink(outages: outages)
            do throws(RedisError) {
                _ = try lane.run { (registry) throws(RedisError) in try registry.release(stream: name, nodeId: node) }
                return nil
            } catch {
                noteFailure(error)
                return "\(error)"
            }
        }
        if let problem { log.info("release of \(name) left to its TTL (\(problem))") }
    }

    /// Puts `codecs` into the record of the claimed `name`: at once for the caller (it only
    /// hands them over and wakes the heartbeat), in Redis with the refresh that follows. Ignored
    /// for a name this node does not claim by then.
    public func setCodecs(_ codecs: RecordCodecs, ofStream name: String) {
        pendingCodecs.withLock { $0[name] = codecs }
        if started.load(ordering: .acquiring) { wakeup.signal() }
    }

    /// The names this node claims now.
    public var claimedStreams: [String] { claimLane.withLock { $0.claims.keys.sorted() } }

    /// Refreshes each claim on the claim lane, one command per lock, so a claim or release from
    /// another thread waits behind at most one of them. A name released meanwhile is skipped:
    /// it is checked under the same lock as the refresh.
    private func refreshClaims(ttlMs: Int) throws(RedisError) -> [(warn: Bool, text: String)] {
        var lines: [(warn: Bool, text: String)] = []
        let names = claimLane.withLock { $0.claims.keys.sorted() }
        let outages = self.outages.load(ordering: .acquiring)
        for name in names {
            let outcome = try claimLane.withLock { (lane: inout ClaimLane) throws(RedisError) -> ClaimRefresh? in
                guard var claim = lane.claims[name] else { return nil }
                // Kept in the lane's record, so a refresh that fails writes them again the next time.
                if let codecs = pendingCodecs.withLock({ $0.removeValue(forKey: name) }) {
                    claim.codecs = codecs
                    lane.claims[name] = claim
                }
                lane.dropStaleLink(outages: outages)
                let outcome: ClaimRefresh
                do throws(RedisError) {
                    outcome = try lane.run { (registry) throws(RedisError) in try registry.refresh(claim, ttlMs: ttlMs) }
                } catch {
                    // Under the lock, so a claim that waited for this refresh sees it and fails at once.
                    noteFailure(error)
                    throw error
                }
                if case .lost = outcome { lane.claims.removeValue(forKey: name) }
                return outcome
            }
            switch outcome {
            case nil, .refreshed?: break
            case .reclaimed?: lines.append((false, "claimed \(name) again (its key had gone)"))
            case .lost(let other)?: lines.append((true, "lost the claim on \(name) to node \(other) while Redis was away"))
            }
        }
        return lines
    }

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
        var record = NodeRecord(nodeId: nodeId, relayAddress: relayAddress, signalingURL: signalingURL,
                                workers: load.workers, sessions: load.sessions, streams: load.streams,
                                players: load.players, updatedAtMs: Self.wallClockMs())
        record.draining = load.draining
        let ttl = settings.ttlMs
        var lines: [(warn: Bool, text: String)] = []
        let url = settings.url
        let outcome: (listed: ClusterSnapshot?, reachable: Bool, problem: String?) = lane.withLock { lane in
            do throws(RedisError) {
                try lane.registry.register(record, ttlMs: ttl)
                lines += try refreshClaims(ttlMs: settings.claimTtlMs)
                try syncPresence(lane.registry, ttlMs: ttl)
                let nodes = try lane.registry.nodes()
                let streams = try lane.registry.streams()
                let presence = try lane.registry.presence()
                let junk = nodes.junk + streams.junk + presence.junk
                let problem = junk > 0 ? "\(junk) key(s) under \(ClusterKeys.prefix) hold no Sluice record; skipped" : nil
                if lane.reachable == false {
                    lines.append((false, "Redis at \(url) is back; node \(nodeId) registered again with \(claimedStreams.count) claim(s)"))
                } else if lane.reachable == nil {
                    lines.append((false, "node \(nodeId) registered in Redis at \(url) (heartbeat \(settings.heartbeatMs) ms, TTL \(ttl) ms, claims \(settings.claimTtlMs) ms)"))
                }
                if let problem, problem != lane.lastProblem { lines.append((true, "\(problem)")) }
                lane.reachable = true
                lane.lastProblem = problem
                health.store(RedisHealth.reachable.rawValue, ordering: .releasing)
                return (ClusterSnapshot(redisReachable: true, nodes: nodes.nodes, streams: streams.streams,
                                        presence: presence.records, problem: problem, listedAtMs: Self.wallClockMs(),
                                        serial: listings.add(1, ordering: .relaxed).newValue), true, problem)
            } catch {
                let text = "\(error)"
                if error.isConnectionLoss {
                    if lane.reachable != false {
                        outages.add(1, ordering: .acquiringAndReleasing)
                        lines.append((true, "lost Redis at \(url) (\(text)); serving what this node serves, "
                                      + "new cross-node work refused until it returns"))
                    }
                    lane.reachable = false
                    health.store(RedisHealth.unreachable.rawValue, ordering: .releasing)
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
        if let listener = snapshotListener.withLock({ $0 }) { listener() }
    }

    /// A clean stop: the node and its claims go at once instead of after the TTL. The node
    /// record goes first, so other nodes never see its streams' claims gone while the node
    /// still lives: their players of its streams are told the node's loss, not a publisher's
    /// stop (its sessions are going with it).
    private func leave() {
        let node = nodeId
        var problem: String? = lane.withLock { lane in
            defer { lane.registry.connection.close() }
            do {
                try lane.registry.deregister(nodeId: node)
                try lane.registry.deletePresence(node: node)
                return nil
            } catch {
                return "\(error)"
            }
        }
        problem = claimLane.withLock { lane in
            defer {
                lane.claims.removeAll()
                lane.registry.connection.close()
            }
            guard problem == nil else { return problem }
            do {
                for name in lane.claims.keys.sorted() { try lane.registry.release(stream: name, nodeId: node) }
                return nil
            } catch {
                return "\(error)"
            }
        }
        if let problem {
            log.info("node \(nodeId) left without Redis (\(problem)); its keys expire within \(settings.claimTtlMs) ms")
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
