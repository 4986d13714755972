/// The names of the cluster's keys in Redis (docs/cluster.md has the whole layout).
///
/// - `sluice:node:<nodeId>`: a string, the node's `NodeRecord` as JSON, set with `PX` (the
///   heartbeat TTL, 3 s by default) on every heartbeat. No heartbeat, no key: a dead node
///   drops out by itself.
/// - `sluice:stream:<name>`: a string, the `StreamRecord` of the node that publishes the
///   name, claimed with `SET NX PX` (so one node wins a race) and refreshed with the
///   heartbeat; a dead origin's claims expire with the same TTL.
///
/// - `sluice:presence:<nodeId>`: a string, the node's `PresenceRecord` (its call users'
///   sessions) as JSON, written with `PX` like the node record (then only its TTL renewed
///   while it does not change), so a dead node's users drop out with it.
///
/// Listing uses `SCAN MATCH` over these prefixes, not a set of members, so there is no
/// second structure to fall out of step with the keys when a node dies mid-update.
public enum ClusterKeys {
    public static let prefix = "sluice:"
    public static let nodePrefix = "sluice:node:"
    public static let streamPrefix = "sluice:stream:"
    public static let presencePrefix = "sluice:presence:"

    public static func node(_ nodeId: String) -> String { nodePrefix + nodeId }
    public static func stream(_ name: String) -> String { streamPrefix + name }
    public static func presence(_ nodeId: String) -> String { presencePrefix + nodeId }

    /// SCAN patterns. The prefixes hold no glob characters, so `*` alone is the wildcard.
    public static let nodePattern = nodePrefix + "*"
    public static let streamPattern = streamPrefix + "*"
    public static let presencePattern = presencePrefix + "*"
}
