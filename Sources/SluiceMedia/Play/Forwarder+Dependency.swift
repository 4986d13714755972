import SluiceRTP

/// Forwarding by the dependency descriptor: a player gets the frames of one decode target of
/// the source's structure (a spatial and temporal layer of an SVC encoding, or a temporal layer
/// of a single-layer one), and nothing is read from the payload. Codec-neutral: AV1 sends the
/// descriptor, and any codec may.
///
/// - A frame goes out when its decode target indication for the player's target is not "not
///   present": in K-SVC a spatial layer's own frames and the key picture's lower layers, in full
///   SVC the layers below it as well.
/// - The player moves to the wanted target at a frame that is a switch point for it (a key
///   picture for a spatial layer up in K-SVC), or, when the wanted target's frames are all part
///   of the current one (down, or a lower temporal layer), at the start of the next picture.
/// - The RTP marker goes on the last packet of the player's top spatial layer, so its decoder
///   finishes each picture without waiting for layers it never gets.
extension Forwarder {
    /// What to do with one packet's frame: nil to drop it; else the marker it carries and the
    /// spatial layer switch it makes (SVC).
    @inline(__always)
    mutating func followDependency(_ frame: DependencyFrame, isKeyFrame: Bool,
                                   sourceMarker: Bool) -> (marker: Bool, switched: LayerSwitch?)? {
        guard wantedTarget >= 0, frame.generation == targets.generation, wantedTarget < targets.layers.count else {
            return followLayers(frame, sourceMarker: sourceMarker)
        }
        if frame.startOfFrame && activeTarget != wantedTarget { moveTarget(at: frame, isKeyFrame: isKeyFrame) }
        guard activeTarget >= 0, frame.indication(target: activeTarget) != .notPresent else { return nil }
        let top = targets.spatialID(ofTarget: activeTarget)
        var switched: LayerSwitch?
        if choosesSpatialLayers && top != currentSpatial {
            // Reported with the first frame that goes out on the new layer.
            switched = LayerSwitch(from: currentSpatial, to: top)
            currentSpatial = top
        }
        return (sourceMarker || (frame.endOfFrame && Int(frame.spatialID) == top), switched)
    }

    /// Moves `activeTarget` to `wantedTarget` if this frame allows it. A switch point is one
    /// only where the player has what the frame refers to: in a key picture, or within the
    /// spatial layer it has (a temporal layer up). A player with no target yet starts at a key
    /// picture: a base layer frame is a switch point for every target, and refers to the one
    /// before it. A target whose frames the player has all
    /// got starts with the next picture (its first frame, spatial layer 0, so that no picture
    /// is cut after its marker).
    @inline(never)
    private mutating func moveTarget(at frame: DependencyFrame, isKeyFrame: Bool) {
        let wanted = wantedTarget
        let active = activeTarget
        let contained = forwardedByLayers
            || (active >= 0 && active < targets.contained.count && targets.contained[active] & (1 << UInt32(wanted)) != 0)
        let sameSpatial = active >= 0 && targets.spatialID(ofTarget: active) == targets.spatialID(ofTarget: wanted)
        let switchPoint = frame.indication(target: wanted) == .switchPoint && (isKeyFrame || sameSpatial)
        guard switchPoint || (contained && frame.spatialID == 0) else { return }
        activeTarget = wanted
        forwardedByLayers = false
    }

    /// Before the player's target is known for this structure: by the frame's layers alone.
    @inline(never)
    private mutating func followLayers(_ frame: DependencyFrame, sourceMarker: Bool) -> (marker: Bool, switched: LayerSwitch?)? {
        guard Int(frame.spatialID) <= targetSpatial, frame.temporalID <= maxTemporalLayer else { return nil }
        forwardedByLayers = true
        return (sourceMarker || (frame.endOfFrame && Int(frame.spatialID) == targetSpatial), nil)
    }

    /// The active decode targets to tell the player with this frame (its first packet, or one
    /// that brings the structure), nil to leave the descriptor as it came: the player's target
    /// and those it contains, so its decoder waits for no frame of another. A structure makes
    /// every target active again, so it is rewritten too; once the player gets them all, it is
    /// told so at each frame until the next structure says it.
    @inline(__always)
    mutating func announcedTargets(_ frame: DependencyFrame) -> ActiveTargetsRewrite? {
        let count = targets.layers.count
        guard activeTarget >= 0, activeTarget < targets.contained.count, count <= 32,
              frame.generation == targets.generation else { return nil }
        let all = count == 32 ? UInt32.max : (UInt32(1) << UInt32(count)) &- 1
        let mask = (targets.contained[activeTarget] | UInt32(1) << UInt32(activeTarget)) & all
        if mask == all {
            if frame.attachesStructure { toldPartialTargets = false }
            guard toldPartialTargets else { return nil }
        } else {
            toldPartialTargets = true
        }
        return ActiveTargetsRewrite(mask: mask, count: UInt8(count), structureEndBit: UInt16(clamping: targets.structureEndBit))
    }

    /// A restart (a new source, a mute lifted): the next target starts at a switch point.
    mutating func restartDependency() {
        frameNumbers.restart()
        activeTarget = -1
        forwardedByLayers = false
        currentSpatial = nil
    }
}

/// A player's dependency descriptor frame numbers. Each simulcast layer (and each publisher)
/// counts its own, and a receiver takes a frame numbered below one it has for an old one and
/// drops it (libwebrtc does, with no NACK or PLI: the player froze until the count caught up,
/// found by interop `test_e2ee.py` on a switch up). So at each new layer or source the count
/// goes on from the last number the player got: an offset, added to every number of the layer.
struct FrameNumberContinuity {
    private var offset: UInt16 = 0
    /// The layer the offset was set for; -1: the next frame sets it.
    private var layer = -1
    private var last: UInt16 = 0
    private var sentAny = false

    /// The offset for a frame `number` of `layer` that goes to the player.
    @inline(__always)
    mutating func offset(for number: UInt16, layer: Int) -> UInt16 {
        if layer != self.layer {
            offset = sentAny ? (last &+ 1) &- number : 0
            self.layer = layer
        }
        let out = number &+ offset
        // Newer only (serial arithmetic): a late packet of an earlier frame keeps the last.
        if !sentAny || out &- last < 0x8000 { last = out }
        sentAny = true
        return offset
    }

    /// A new source or a restart: its next frame sets the offset anew.
    mutating func restart() { layer = -1 }
}
