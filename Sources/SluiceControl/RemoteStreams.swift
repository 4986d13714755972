/// What an edge node needs of the cluster to play a stream published on another node
/// (docs/cluster.md, "Relay links"). SluiceServer implements it over the Redis registry's
/// cached view and the nodes' HTTP control channel. Called on the control thread; nothing here
/// waits on the network there but `lookUp`, bounded.
public protocol RemoteStreams: AnyObject {
    /// This node's `cluster.nodeId`.
    var nodeID: String { get }
    /// The codecs of `stream` when another node publishes it now, from the cached registry;
    /// nil when no node does (or the cache says Redis is away: `available` tells).
    func codecs(of stream: String) -> StreamCodecs?
    /// The codecs of `stream` read from the registry itself, for a play of a stream the cache
    /// does not list yet (published less than a heartbeat ago: its origin answered the publish,
    /// with the codecs in the record, before it said `PUBLISHING`). The one call here that waits
    /// on the network, bounded like a publish's claim; nil when no other node publishes it.
    func lookUp(_ stream: String) -> StreamCodecs?
    /// Whether the registry can be trusted now (Redis reachable at the last heartbeat).
    var available: Bool { get }
    /// The node that publishes `stream` now, when `codecs(of:)` has an answer: the origin a
    /// relayed stream's players depend on.
    func originNode(of stream: String) -> String?
    /// Whether `node` is in the cached registry's live node list (its heartbeat record has not
    /// expired). Tells a dead origin from a publisher that stopped, for its players' info.
    func isNodeAlive(_ node: String) -> Bool
    /// Asks the origin of `request.stream` for a link, off the control thread; `completion` may
    /// run on any thread.
    func open(_ request: LinkRequest, completion: @escaping @Sendable (Result<LinkAnswer, LinkFailure>) -> Void)
    /// Tells the origin the link is no longer wanted (best effort, off the control thread).
    func close(stream: String, link: String)
}

extension RemoteStreams {
    /// Without a registry to read, the cache is all there is.
    public func lookUp(_ stream: String) -> StreamCodecs? { codecs(of: stream) }
}

/// Why a link could not be opened, in words for the log and a player's status.
public struct LinkFailure: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// What the engine tells its server about the links it serves as an origin (for /metrics).
public struct LinkView: Sendable, Equatable {
    public var link: String
    public var stream: String
    public var edgeNode: String
}
