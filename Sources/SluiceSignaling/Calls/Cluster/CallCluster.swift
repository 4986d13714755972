import SluiceCalls
import SluiceVocabulary

/// What calls across nodes need of the cluster (docs/cluster.md, "Calls across nodes"):
/// presence in the shared registry, and a channel to other nodes. SluiceServer implements it
/// over the Redis registry (`ClusterMember`) and the nodes' authenticated HTTP control channel.
/// Called on the signaling thread; nothing here waits on the network.
public protocol CallCluster: AnyObject {
    /// This node's `cluster.nodeId`.
    var nodeID: String { get }
    /// This node's sessions of call users, with the calls each user is in, for the cluster's
    /// presence: handed over at once, written to Redis by the next heartbeat (which it wakes).
    func setPresence(_ sessions: [RemoteSession])
    /// The other nodes' sessions and the live nodes as of the last heartbeat; nil while the
    /// cluster's state is unavailable (Redis away: then nothing is taken for gone).
    func presence() -> ClusterPresence?
    /// The version `presence()` would have now, read without building it (the service thread
    /// asks at every wake).
    var presenceVersion: Int { get }
    /// Sends `messages` to `node` after everything sent to it before; `reply` runs on any
    /// thread with the node's answer, or why there is none.
    func send(_ messages: [ClusterCallMessage], to node: String,
              reply: @escaping @Sendable (Result<ClusterCallReply, ClusterCallFailure>) -> Void)
}

/// The cluster's presence as one heartbeat listed it.
public struct ClusterPresence: Sendable, Equatable {
    /// Changes with every listing, so a reader acts once per heartbeat.
    public var version: Int
    public var sessions: [RemoteSession]
    public var liveNodes: Set<String>

    public init(version: Int, sessions: [RemoteSession], liveNodes: Set<String>) {
        self.version = version
        self.sessions = sessions
        self.liveNodes = liveNodes
    }
}
