/// The cluster as this node last saw it: what the admin API shows without asking Redis.
public struct ClusterSnapshot: Sendable, Equatable {
    /// False while Redis cannot be reached (the lists are then the last ones seen).
    public var redisReachable: Bool
    public var nodes: [NodeRecord]
    public var streams: [StreamRecord]
    /// Every node's call users' sessions (this node's own included).
    public var presence: [PresenceRecord]
    /// The last problem met (a lost connection, or junk under the cluster's keys); nil when
    /// the last heartbeat went well.
    public var problem: String?
    /// Wall-clock milliseconds of the last heartbeat that listed nodes and streams; 0: never.
    public var listedAtMs: Int64

    /// One more with each listing.
    public var serial: Int

    public init(redisReachable: Bool = false, nodes: [NodeRecord] = [], streams: [StreamRecord] = [],
                presence: [PresenceRecord] = [], problem: String? = nil, listedAtMs: Int64 = 0, serial: Int = 0) {
        self.redisReachable = redisReachable
        self.nodes = nodes
        self.streams = streams
        self.presence = presence
        self.serial = serial
        self.problem = problem
        self.listedAtMs = listedAtMs
    }
}
