/// Reads and writes of stream records the signaling thread waits for, on the claim lane (each
/// command bounded by `claimTimeoutMs`): the codecs a publish's answer puts into its record
/// before `PUBLISHING`, and a stream's record for a play the snapshot is too old for
/// (docs/cluster.md, "Publishing claims its name" and "Relay links").
extension ClusterMember {
    /// Writes `codecs` into the record of the claimed `name` now, on the claim lane (each
    /// command bounded by `claimTimeoutMs`): for a publish answered on the signaling thread, so
    /// the record carries its codecs before the publisher's `PUBLISHING` goes out and a play on
    /// any node finds them. True when Redis has them; false (Redis away or slow, or the name not
    /// claimed by this node) leaves them to the next refresh, as `setCodecs` does.
    @discardableResult
    public func writeCodecs(_ codecs: RecordCodecs, ofStream name: String) -> Bool {
        guard !redisKnownUnreachable else {
            setCodecs(codecs, ofStream: name)
            return false
        }
        let ttl = settings.claimTtlMs
        let outages = self.outages.load(ordering: .acquiring)
        let written = claimLane.withLock { (lane: inout ClaimLane) -> Bool in
            guard var claim = lane.claims[name] else { return false }
            claim.codecs = codecs
            lane.claims[name] = claim
            lane.dropStaleLink(outages: outages)
            do throws(RedisError) {
                let outcome = try lane.run { (registry) throws(RedisError) in try registry.refresh(claim, ttlMs: ttl) }
                if case .lost = outcome {
                    lane.claims.removeValue(forKey: name)
                    return false
                }
                return true
            } catch {
                noteFailure(error)
                return false
            }
        }
        if !written { setCodecs(codecs, ofStream: name) }
        return written
    }

    /// The record of `name` and its origin's node record, read from Redis now on the claim lane
    /// (bounded by `claimTimeoutMs`), for a play of a stream the cached snapshot does not list
    /// yet (published less than a heartbeat ago). nil when no live node claims it; throws when
    /// Redis cannot answer.
    public func lookup(stream name: String) throws(RedisError) -> (record: StreamRecord, node: NodeRecord)? {
        if redisKnownUnreachable { throw .connection(Self.knownUnreachable) }
        let outages = self.outages.load(ordering: .acquiring)
        do {
            return try claimLane.withLock { (lane: inout ClaimLane) throws(RedisError) -> (StreamRecord, NodeRecord)? in
                lane.dropStaleLink(outages: outages)
                return try lane.run { (registry) throws(RedisError) -> (StreamRecord, NodeRecord)? in
                    guard let record = try registry.stream(name), let node = try registry.node(record.node) else { return nil }
                    return (record, node)
                }
            }
        } catch {
            noteFailure(error)
            throw error
        }
    }
}
