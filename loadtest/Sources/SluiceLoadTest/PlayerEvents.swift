import Synchronization

/// What a player hears on signaling about its own handle: layer changes and an unexpected end.
public struct PlayerEvents: Sendable, Equatable {
    /// `layerChanged` events (the first one announces the starting layer).
    public var layerChanges = 0
    public var lastLayer: Int?
    /// A status that ended the handle while the run was on ("FAILED Failed by ICE timeout").
    public var ended: String?

    public init() {}

    /// Switches after the first layer was chosen.
    public var layerSwitches: Int { max(0, layerChanges - 1) }
}

/// `PlayerEvents` shared between the notification reader and the sampler.
final class PlayerEventLog: Sendable {
    private let events = Mutex(PlayerEvents())
    private let stopping = Atomic<Bool>(false)

    var snapshot: PlayerEvents { events.withLock { $0 } }

    func layerChanged(to layer: Int?) {
        events.withLock { e in
            e.layerChanges += 1
            if let layer { e.lastLayer = layer }
        }
    }

    /// Ignored once the run is ending (`markStopping`): then handles end on purpose.
    func ended(_ what: String) {
        guard !stopping.load(ordering: .acquiring) else { return }
        events.withLock { e in
            if e.ended == nil { e.ended = what }
        }
    }

    func markStopping() {
        stopping.store(true, ordering: .releasing)
    }
}
