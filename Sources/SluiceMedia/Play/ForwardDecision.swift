/// What a player's `Forwarder` decided for one source packet; the consumer applies it.
enum ForwardDecision {
    /// Not for this player (another layer, a temporal layer above its cap, disabled, old).
    case drop
    /// Not yet: the player waits for a key frame of `layer` (nil: of any layer), so ask for one.
    case waitForKeyFrame(layer: Int?)
    /// Send it, rewritten.
    case forward(ForwardRewrite)
}

/// How one forwarded packet is rewritten for its player.
struct ForwardRewrite {
    var sequence: UInt16
    var timestamp: UInt32
    /// VP8: the picture id and TL0PICIDX the copy carries.
    var vp8: VP8Rewrite?
    /// Set when this packet moved the player's video to another layer (a simulcast switch).
    var layerSwitch: LayerSwitch?
    /// The packet ends the player's picture (the last of its top spatial layer): the RTP marker
    /// is set whatever the source's was.
    var setsMarker = false
    /// The dependency descriptor goes out with these active decode targets (nil: as it came).
    var activeTargets: ActiveTargetsRewrite?
    /// Added to the descriptor's frame number (`Forwarder.frameNumbers`); 0 leaves it.
    var frameNumberOffset: UInt16 = 0
}

/// A descriptor's active decode targets as a player is told them (`DependencyActiveTargets`):
/// the targets it gets, and what the rewrite needs of the source's structure.
struct ActiveTargetsRewrite: Equatable {
    var mask: UInt32
    var count: UInt8
    /// Where the structure ends in a descriptor that attaches it (`DependencyTargets.structureEndBit`).
    var structureEndBit: UInt16
}

struct LayerSwitch: Equatable {
    /// nil: the first layer this player got from this source.
    var from: Int?
    var to: Int
}
