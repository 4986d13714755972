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
    mutating func followDependency(_ frame: DependencyFrame, sourceMarker: Bool) -> (marker: Bool, switched: LayerSwitch?)? {
        guard wantedTarget >= 0, frame.generation == targets.generation, wantedTarget < targets.layers.count else {
            return followLayers(frame, sourceMarker: sourceMarker)
        }
        var switched: LayerSwitch?
        if frame.startOfFrame {
            if activeTarget != wantedTarget { moveTarget(at: frame) }
            if choosesSpatialLayers && activeTarget >= 0 {
                let spatial = targets.spatialID(ofTarget: activeTarget)
                if spatial != currentSpatial {
                    switched = LayerSwitch(from: currentSpatial, to: spatial)
                    currentSpatial = spatial
                }
            }
        }
        guard activeTarget >= 0, frame.indication(target: activeTarget) != .notPresent else { return nil }
        let top = targets.spatialID(ofTarget: activeTarget)
        return (sourceMarker || (frame.endOfFrame && Int(frame.spatialID) == top), switched)
    }

    /// Moves `activeTarget` to `wantedTarget` if this frame allows it.
    @inline(never)
    private mutating func moveTarget(at frame: DependencyFrame) {
        let wanted = wantedTarget
        let contained = forwardedByLayers
            || (activeTarget >= 0 && activeTarget < targets.contained.count
                && targets.contained[activeTarget] & (1 << UInt32(wanted)) != 0)
        // A contained target starts with a picture (its first frame, spatial layer 0), so that
        // no picture is cut after its marker.
        guard frame.indication(target: wanted) == .switchPoint || (contained && frame.spatialID == 0) else { return }
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

    /// A restart (a new source, a mute lifted): the next target starts at a switch point.
    mutating func restartDependency() {
        activeTarget = -1
        forwardedByLayers = false
        currentSpatial = nil
    }
}
