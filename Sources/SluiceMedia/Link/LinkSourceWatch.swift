import SluiceRTP

/// The edge's view of a relay link, kept by the link's producer (docs/cluster.md, "Link
/// messages"): the origin's last `RTCPLinkState`, and whether the link went silent. The origin
/// sends its state every 250 ms whether or not media flows, so a second without one means the
/// link is gone (its origin dropped it, or the path between the nodes did), and the edge asks
/// for a new one at once instead of waiting out ICE consent: its players keep their numbering
/// and see a gap of about that second.
struct LinkSourceWatch {
    /// Silence after the first state that ends the link.
    static let silenceMicros: UInt64 = 1_000_000
    /// Time for the first state to come, from the link's start (ICE, DTLS, then a tick).
    static let firstStateMicros: UInt64 = 3_000_000

    private let startMicros: UInt64
    private var lastStateMicros: UInt64?
    private var serial: UInt32?
    private(set) var mute: RTCPLinkState.Mute?
    /// Every layer as the origin measures it, including the ones this link does not carry now.
    private(set) var layers: [RTCPLinkState.Layer] = []
    private var reportedSilence = false

    init(now: UInt64) {
        startMicros = now
    }

    /// A state arrived; true when its mute state differs from the last one's (or is the first).
    mutating func arrived(_ state: RTCPLinkState, now: UInt64) -> Bool {
        lastStateMicros = now
        // A state older than the one held came late (reordered): only its keep-alive counts.
        if let serial, Int32(bitPattern: state.serial &- serial) < 0 { return false }
        serial = state.serial
        layers = state.layers
        defer { mute = state.mute }
        return mute != state.mute
    }

    /// True exactly once: at the first check that finds the link silent.
    mutating func hasGoneSilent(now: UInt64) -> Bool {
        guard !reportedSilence else { return false }
        let silent = lastStateMicros.map { now > $0 && now - $0 >= Self.silenceMicros }
            ?? (now > startMicros && now - startMicros >= Self.firstStateMicros)
        if silent { reportedSilence = true }
        return silent
    }
}
