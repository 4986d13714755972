import SluiceJSON

/// This node's part in the cluster's presence (docs/cluster.md, "Calls across nodes"): its call
/// users' sessions, handed over by the signaling thread and written by the heartbeat.
extension ClusterMember {
    /// This node's call users' sessions, for every node's `onlineUsers` and `call`: written by
    /// the next heartbeat, which this wakes (so other nodes see a change within one of theirs).
    public func setPresence(_ sessions: [PresenceRecord.Session]) {
        presence.withLock { $0 = (PresenceRecord(node: nodeId, sessions: sessions), false) }
        if started.load(ordering: .acquiring) { wakeup.signal() }
    }

    /// Heartbeat thread: writes this node's presence when it changed (or its key is gone),
    /// and renews its TTL otherwise.
    func syncPresence(_ registry: ClusterRegistry, ttlMs: Int) throws(RedisError) {
        let (record, written) = presence.withLock { $0 }
        guard let record else { return }
        if written, try registry.touchPresence(node: nodeId, ttlMs: ttlMs) { return }
        try registry.writePresence(record, ttlMs: ttlMs)
        // A newer one handed over meanwhile stays unwritten for the next heartbeat.
        presence.withLock { if $0.record == record { $0.written = true } }
    }
}
