import SluiceCluster
import SluiceSignaling

/// The drain for a restart or an upgrade (docs/protocol.md section 6, **Draining**):
/// `/health` turns 503, new sessions, streams and players get 1017, every session hears
/// `serverDraining` with the other nodes that take sessions, and the node record says
/// `draining` so that no node sends anyone here. What runs goes on for `server.drainSeconds`
/// at most; the caller then shuts down (main.swift, on `isDrained`).
extension Server {
    /// From any thread (SIGTERM's loop or the admin API): begins the drain, or finds it begun.
    /// The seconds it may last.
    @discardableResult
    public func drain() -> Int {
        cluster?.setDraining()
        let servers = cluster.map { NodeRecord.placesToGo($0.snapshot.nodes, besides: $0.nodeId) } ?? []
        if signaling.drain(seconds: config.drainSeconds, servers: servers) {
            log.info("drain requested: up to \(config.drainSeconds) s"
                     + (servers.isEmpty ? "" : "; clients are pointed at \(servers.joined(separator: ", "))"))
        }
        return config.drainSeconds
    }

    /// From any thread: the drain's last session ended or its deadline passed.
    public var isDrained: Bool { signaling.isDrained }

    func registerDrain(on router: HTTPRouter) {
        AdminDrain(adminToken: config.adminToken, drain: { [weak self] in self?.drain() ?? 0 }).register(on: router)
    }
}
