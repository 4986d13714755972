import SluiceJSON

/// A drain for a restart (docs/protocol.md section 6, **Draining**): the sessions hear
/// `serverDraining` once, new connects, publishes and plays get 1017, and what runs goes on
/// until it ends or the deadline comes. The server, not this layer, closes what is left then.
extension SessionManager {
    public var isDraining: Bool { table.drainDeadline != nil }

    /// Service thread. `deadlineMicros`: monotonic; `servers`: other nodes' signaling URLs that
    /// take sessions (empty on a single node). False when a drain had already begun.
    @discardableResult
    public func beginDrain(deadlineMicros: UInt64, servers: [String]) -> Bool {
        guard table.drainDeadline == nil else { return false }
        table.drainDeadline = deadlineMicros
        let now = table.clock()
        let leftMs = deadlineMicros > now ? Int64((deadlineMicros - now) / 1000) : 0
        let notification = RPCMessage.notification("serverDraining", [
            "deadlineMs": JSONValue(leftMs), "servers": .array(servers.map { .string($0) })])
        for session in table.connectedSessions { session.send(notification) }
        return true
    }
}
