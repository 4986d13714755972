import Foundation

/// `serverDraining` (docs/protocol.md section 6, "Draining"): the server restarts soon.
public struct ServerDraining: Sendable, Hashable {
    /// Milliseconds from the notice until the server closes the sessions left.
    public var deadlineMs: Int
    /// Other cluster nodes that take sessions (empty on a single node).
    public var servers: [URL]

    public init(deadlineMs: Int, servers: [URL]) {
        self.deadlineMs = deadlineMs
        self.servers = servers
    }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension SluiceSession {
    /// The session to move to when this one's server drains: on `url` when the app gives one
    /// (its load balancer, say), else on the first of the notice's `servers`; nil when there
    /// is neither. Not opened: the app opens it, connects with its credentials, publishes and
    /// plays again there, then disconnects this one. Same request timeout as this session.
    public func successor(for notice: ServerDraining, url: URL? = nil) -> SluiceSession? {
        guard let target = url ?? notice.servers.first else { return nil }
        return SluiceSession(url: target, requestTimeout: requestTimeout)
    }
}
