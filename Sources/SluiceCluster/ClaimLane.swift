/// The claims of one node and the Redis connection they use, apart from the heartbeat's
/// connection. Claims come from the signaling thread, which must not wait behind a heartbeat's
/// listing (several commands, each up to its timeout): so they get a connection of their own
/// with a short timeout. The heartbeat refreshes each claim through this lane too, one command
/// per lock, so a release and a refresh still cannot interleave (which could bring a released
/// name back), and a caller waits behind at most one refresh.
struct ClaimLane {
    var registry: ClusterRegistry
    var claims: [String: StreamRecord] = [:]
    /// The heartbeat's count of Redis outages when this lane's link was last checked.
    var outagesSeen = 0

    /// Drops a link made before the last outage the heartbeat saw: hiredis notices a dead
    /// server only when a command fails on it, so after Redis restarted the lane's first
    /// command would fail (and refuse a publish) although Redis is back.
    mutating func dropStaleLink(outages: Int) {
        guard outages != outagesSeen else { return }
        outagesSeen = outages
        registry.connection.close()
    }

    /// Runs `body` on the lane's link, and once more on a new link when an old one turns out
    /// closed by the server (Redis restarted between two heartbeats, so none saw it gone):
    /// that failure is immediate, so the retry costs no timeout. A timeout is not retried.
    func run<T>(_ body: (ClusterRegistry) throws(RedisError) -> T) throws(RedisError) -> T {
        let wasConnected = registry.connection.isConnected
        do {
            return try body(registry)
        } catch where wasConnected && error.isClosedByServer {
            return try body(registry)
        }
    }
}
