import SluiceVocabulary

/// What a worker reports to the control plane, queued and drained on the control thread.
/// Typed values only: the words (event names, `by`, data keys, status info strings of
/// docs/protocol.md) are the control plane's (SluiceControl `EventWords`).
package enum WorkerEvent: Sendable, Equatable {
    /// DTLS is up and the first RTP packet arrived (publish).
    case publishing(StreamHandle)
    /// The first packet went to this player (again, after a publisher returned).
    case playing(StreamHandle)
    /// The handle ends with this reason.
    case failed(StreamHandle, FailureReason)
    /// A player's forwarded simulcast layer changed (its size, and why).
    case layerChanged(StreamHandle, layer: Int, width: Int, height: Int, reason: LayerSelector.Reason)
    /// Even a player's lowest layer does not fit its bandwidth estimate.
    case notEnoughBandwidth(StreamHandle, kbps: Int)
    /// A handle's connection quality moved to another level.
    case connectionQuality(StreamHandle, score: Double, level: ConnectionQuality.Level)
    /// A publisher's top layer stayed over one of its caps.
    case limitExceeded(StreamHandle, limit: PublishLimit, value: Int, max: Int)
    /// Dynacast: the simulcast layers of a publisher that have a taker changed (their rids,
    /// where it named them, and indices).
    case layersWanted(StreamHandle, rids: [String], layers: [Int])
    /// The stream's size (its top layer) changed: for the publisher and every player.
    case resize(stream: String, width: Int, height: Int)
    /// A pre-call test's figures so far (once a second), and at its end. Indirect: the figures
    /// are ten words, and an inline payload that size leaves the other cases' copies reading
    /// bytes they never wrote (valgrind: "conditional jump depends on uninitialised value" in
    /// WorkerEvent's outlined copy, on every event).
    indirect case precallProgress(StreamHandle, PrecallFigures)
    indirect case precallDone(StreamHandle, PrecallFigures)
    /// A publisher's smoothed audio level and its last window's mean (its voice), in dBov
    /// (`AudioLevelMeter`), for the active speaker: while they move, every 100 ms near speech,
    /// at least once a second.
    case audioLevel(StreamHandle, stream: String, level: Double, voice: Double)
    /// Edge: the origin's mute state of a relayed stream changed (`RTCPLinkState.Mute` bits).
    case linkMuted(StreamHandle, flags: UInt8)
}
