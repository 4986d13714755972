import SluiceJSON

/// The cluster's shared state in Redis, one blocking call per operation over one
/// `RedisConnection` (so: one thread at a time). Key layout: `ClusterKeys`; docs/cluster.md.
public final class ClusterRegistry {
    public let connection: RedisConnection
    /// The largest number of SCAN rounds one listing makes, so a huge or hostile keyspace
    /// cannot hold the caller for ever.
    static let maxScanRounds = 1000

    public init(connection: RedisConnection) {
        self.connection = connection
    }

    // MARK: Nodes

    /// Writes the node's record with a TTL: a register and a heartbeat are the same SET.
    public func register(_ node: NodeRecord, ttlMs: Int) throws(RedisError) {
        let reply = try connection.command(bytes: [Array("SET".utf8), Array(ClusterKeys.node(node.nodeId).utf8),
                                                   node.json.serializedBytes(), Array("PX".utf8), Array(String(max(1, ttlMs)).utf8)])
        try Self.expectOK(reply, "SET \(ClusterKeys.node(node.nodeId))")
    }

    /// Removes the node's record at once (a clean stop), rather than waiting for its TTL.
    public func deregister(nodeId: String) throws(RedisError) {
        try Self.expectNoError(try connection.command(["DEL", ClusterKeys.node(nodeId)]))
    }

    /// The live nodes, ordered by id. Keys under the prefix that hold no record are skipped
    /// and counted in `junk`, never fatal.
    public func nodes() throws(RedisError) -> (nodes: [NodeRecord], junk: Int) {
        var junk = 0
        var nodes: [NodeRecord] = []
        for value in try values(matching: ClusterKeys.nodePattern) {
            if let node = NodeRecord(bytes: value) { nodes.append(node) } else { junk += 1 }
        }
        return (nodes.sorted { $0.nodeId < $1.nodeId }, junk)
    }

    public func node(_ nodeId: String) throws(RedisError) -> NodeRecord? {
        let reply = try connection.command(["GET", ClusterKeys.node(nodeId)])
        try Self.expectNoError(reply)
        guard case .string(let bytes) = reply else { return nil }
        return NodeRecord(bytes: bytes)
    }

    // MARK: Streams

    /// Claims `record.name` for `record.node` with `SET NX PX`: of nodes racing for one name,
    /// exactly one gets `.claimed`, and the others `.inUse(by:)` the winner. A name this node
    /// holds already is claimed again (a re-publish, or a restart within the TTL), with the
    /// new record.
    public func claim(_ record: StreamRecord, ttlMs: Int) throws(RedisError) -> StreamClaim {
        let key = ClusterKeys.stream(record.name)
        let value = record.json.serializedBytes()
        // The holder may expire between our SET NX and our GET: try a few times.
        for _ in 0..<3 {
            let reply = try connection.command(bytes: [Array("SET".utf8), Array(key.utf8), value, Array("NX".utf8),
                                                       Array("PX".utf8), Array(String(max(1, ttlMs)).utf8)])
            try Self.expectNoError(reply)
            if reply == .status("OK") { return .claimed }
            guard reply.isNull else { throw .unexpected("SET NX \(key) answered \(reply.kindDescription)") }
            guard let holder = try stream(record.name) else {
                if try connection.command(["EXISTS", key]).integer == 0 { continue }
                throw .unexpected("\(key) holds something that is not a stream record")
            }
            if holder.node != record.node { return .inUse(by: holder.node) }
            switch try refresh(record, ttlMs: ttlMs) {
            case .refreshed, .reclaimed: return .claimed
            case .lost(let other): return .inUse(by: other)
            }
        }
        throw .unexpected("\(key) kept changing while it was claimed")
    }

    /// Extends this node's claim (and writes the record again); says when it was gone or is
    /// another node's now. Atomic in Redis (`ClusterScripts.refresh`).
    public func refresh(_ record: StreamRecord, ttlMs: Int) throws(RedisError) -> ClaimRefresh {
        let reply = try connection.command(bytes: [Array("EVAL".utf8), Array(ClusterScripts.refresh.utf8), Array("1".utf8),
                                                   Array(ClusterKeys.stream(record.name).utf8), Array(record.node.utf8),
                                                   record.json.serializedBytes(), Array(String(max(1, ttlMs)).utf8)])
        try Self.expectNoError(reply)
        switch reply {
        case .integer(1): return .refreshed
        case .integer(2): return .reclaimed
        case .string(let bytes): return .lost(to: StreamRecord(bytes: bytes)?.node ?? "(not a Sluice node)")
        default: throw .unexpected("the refresh script answered \(reply.kindDescription)")
        }
    }

    /// Deletes the claim only if `nodeId` still owns it; true when it did. A node that lost
    /// the name (it expired and another claimed it) cannot take it from the new owner.
    @discardableResult
    public func release(stream name: String, nodeId: String) throws(RedisError) -> Bool {
        let reply = try connection.command(["EVAL", ClusterScripts.release, "1", ClusterKeys.stream(name), nodeId])
        try Self.expectNoError(reply)
        guard let count = reply.integer else { throw .unexpected("the release script answered \(reply.kindDescription)") }
        return count == 1
    }

    /// The claimed streams, ordered by name; values that are not records count as `junk`.
    public func streams() throws(RedisError) -> (streams: [StreamRecord], junk: Int) {
        var junk = 0
        var streams: [StreamRecord] = []
        for value in try values(matching: ClusterKeys.streamPattern) {
            if let stream = StreamRecord(bytes: value) { streams.append(stream) } else { junk += 1 }
        }
        return (streams.sorted { $0.name < $1.name }, junk)
    }

    /// The stream's record, or nil when no node claims it (or the key holds junk).
    public func stream(_ name: String) throws(RedisError) -> StreamRecord? {
        let reply = try connection.command(["GET", ClusterKeys.stream(name)])
        try Self.expectNoError(reply)
        guard case .string(let bytes) = reply else { return nil }
        return StreamRecord(bytes: bytes)
    }

    /// The origin of a stream: the node that claims it, while that node is alive.
    public func origin(ofStream name: String) throws(RedisError) -> NodeRecord? {
        guard let record = try stream(name) else { return nil }
        return try node(record.node)
    }

    // MARK: Presence

    /// Writes the node's presence with a TTL (`SET PX`).
    public func writePresence(_ record: PresenceRecord, ttlMs: Int) throws(RedisError) {
        let reply = try connection.command(bytes: [Array("SET".utf8), Array(ClusterKeys.presence(record.node).utf8),
                                                   record.json.serializedBytes(), Array("PX".utf8), Array(String(max(1, ttlMs)).utf8)])
        try Self.expectOK(reply, "SET \(ClusterKeys.presence(record.node))")
    }

    /// Renews the TTL of the node's presence; false when the key is gone (Redis restarted, or
    /// it expired), so the caller writes it whole again.
    public func touchPresence(node: String, ttlMs: Int) throws(RedisError) -> Bool {
        let reply = try connection.command(["PEXPIRE", ClusterKeys.presence(node), String(max(1, ttlMs))])
        try Self.expectNoError(reply)
        return reply.integer == 1
    }

    public func deletePresence(node: String) throws(RedisError) {
        try Self.expectNoError(try connection.command(["DEL", ClusterKeys.presence(node)]))
    }

    /// Every node's presence; values that are not records count as `junk`.
    public func presence() throws(RedisError) -> (records: [PresenceRecord], junk: Int) {
        var junk = 0
        var records: [PresenceRecord] = []
        for value in try values(matching: ClusterKeys.presencePattern) {
            if let record = PresenceRecord(bytes: value) { records.append(record) } else { junk += 1 }
        }
        return (records.sorted { $0.node < $1.node }, junk)
    }

    // MARK: Helpers

    /// The values of every key matching `pattern` (SCAN, then MGET in batches); keys that
    /// expire in between are left out.
    private func values(matching pattern: String) throws(RedisError) -> [[UInt8]] {
        var keys: [[UInt8]] = []
        var cursor = "0"
        var rounds = 0
        repeat {
            let reply = try connection.command(["SCAN", cursor, "MATCH", pattern, "COUNT", "200"])
            try Self.expectNoError(reply)
            guard let parts = reply.elements, parts.count == 2, let next = parts[0].text, let found = parts[1].elements else {
                throw .unexpected("SCAN answered \(reply.kindDescription)")
            }
            for key in found { if case .string(let bytes) = key { keys.append(bytes) } }
            cursor = next
            rounds += 1
        } while cursor != "0" && rounds < Self.maxScanRounds
        // SCAN may return a key twice; keep the first.
        var seen = Set<[UInt8]>()
        keys = keys.filter { seen.insert($0).inserted }
        var values: [[UInt8]] = []
        var start = 0
        while start < keys.count {
            let batch = keys[start..<min(start + 100, keys.count)]
            let reply = try connection.command(bytes: [Array("MGET".utf8)] + batch)
            try Self.expectNoError(reply)
            guard let items = reply.elements else { throw .unexpected("MGET answered \(reply.kindDescription)") }
            for item in items { if case .string(let bytes) = item { values.append(bytes) } }
            start += batch.count
        }
        return values
    }

    private static func expectNoError(_ reply: RedisReply) throws(RedisError) {
        if case .error(let message) = reply { throw .reply(message) }
    }

    private static func expectOK(_ reply: RedisReply, _ what: String) throws(RedisError) {
        try expectNoError(reply)
        guard reply == .status("OK") else { throw .unexpected("\(what) answered \(reply.kindDescription)") }
    }
}
