/// The claims of one node and the Redis connection they use, apart from the heartbeat's
/// connection. Claims come from the signaling thread, which must not wait behind a heartbeat's
/// listing (several commands, each up to its timeout): so they get a connection of their own
/// with a short timeout. The heartbeat refreshes each claim through this lane too, one command
/// per lock, so a release and a refresh still cannot interleave (which could bring a released
/// name back), and a caller waits behind at most one refresh.
struct ClaimLane {
    var registry: ClusterRegistry
    var claims: [String: StreamRecord] = [:]
}

/// What a node last learnt about Redis, shared between the heartbeat and the claim lane
/// (an `Atomic<UInt8>`'s values), so a claim fails at once while Redis is known to be away.
enum RedisHealth: UInt8 {
    /// No command has answered or failed yet.
    case unknown = 0
    case reachable = 1
    case unreachable = 2
}
