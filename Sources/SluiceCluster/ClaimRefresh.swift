/// What a heartbeat's refresh of one claim found.
public enum ClaimRefresh: Sendable, Equatable {
    /// Still ours; its TTL starts again.
    case refreshed
    /// The key had gone (it expired while Redis was away, or Redis restarted empty): it is
    /// ours again.
    case reclaimed
    /// Another node holds it now (it claimed the name while our claim was gone).
    case lost(to: String)
}
