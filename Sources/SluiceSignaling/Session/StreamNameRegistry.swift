/// Where stream names are claimed beyond this node: the cluster's registry when `cluster.redis`
/// is set (SluiceServer adapts ClusterMember to it), none otherwise. Signaling knows no Redis:
/// it asks this before a publish reaches the engine, and gives the name back when the
/// publisher ends, however it ends.
///
/// Called on the signaling thread, so an implementation must answer quickly: within a short
/// timeout when it has to ask someone, and at once when it already knows it cannot.
public protocol StreamNameRegistry: AnyObject {
    /// Claims `stream` for this node's publisher (of app `app`).
    func claim(stream: String, app: String) -> StreamNameClaim
    /// Gives a claimed name back; quick, and never fails (a claim it cannot delete expires).
    func release(stream: String)
    /// The load figures of this node, handed over by the signaling thread about once a second.
    func report(sessions: Int, streams: Int, players: Int)
    /// The publish that claimed `stream` was answered (its codecs are negotiated now).
    func published(stream: String)
    /// The signaling thread woke (each time, before the figures): for work another thread
    /// asked for with `SignalingServer.wake()`. Must be quick when there is nothing to do.
    func serviceWoke()
}

extension StreamNameRegistry {
    public func published(stream: String) {}
    public func serviceWoke() {}
}

/// The answer to a claim.
public enum StreamNameClaim: Equatable, Sendable {
    /// The name is this node's now (or already was).
    case claimed
    /// Another node publishes it: 1003, as for a name in use here.
    case inUse(byNode: String)
    /// The registry cannot tell (Redis unreachable): 1013, and nothing is published.
    case unavailable(String)
}
