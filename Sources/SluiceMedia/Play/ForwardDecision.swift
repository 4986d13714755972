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
}

struct LayerSwitch: Equatable {
    /// nil: the first layer this player got from this source.
    var from: Int?
    var to: Int
}
