/// What a node last learnt about Redis, shared between the heartbeat and the claim lane
/// (an `Atomic<UInt8>`'s values), so a claim fails at once while Redis is known to be away.
enum RedisHealth: UInt8 {
    /// No command has answered or failed yet.
    case unknown = 0
    case reachable = 1
    case unreachable = 2
}
