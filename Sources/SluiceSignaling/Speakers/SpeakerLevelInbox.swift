import Synchronization

/// The other nodes' streams' audio levels, handed over from the cluster's thread: only the
/// latest set is kept (an older one is worth nothing once a newer came).
public final class SpeakerLevelInbox: Sendable {
    private let latest = Mutex<[SpeakerLevel]?>(nil)

    public init() {}

    /// Any thread.
    public func put(_ levels: [SpeakerLevel]) { latest.withLock { $0 = levels } }

    /// Service thread: the set put since the last take, if any.
    func take() -> [SpeakerLevel]? { latest.withLock { value in defer { value = nil }; return value } }
}
