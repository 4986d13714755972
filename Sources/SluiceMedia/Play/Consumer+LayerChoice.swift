import SluiceRTP
import SluiceWire

/// A player's choice of layer, off the packet path: among the simulcast encodings, or the
/// spatial layers of one SVC encoding, by constraints and bandwidth (`LayerSelector`); and, when
/// the source sends the dependency descriptor, the decode target the forwarder follows.
extension Consumer {
    /// Picks the layer this player should get (LayerSelector); a change asks that layer for a
    /// key frame, and the switch happens when it arrives.
    func selectLayer(now: UInt64) {
        guard let upstream, state.forwarder.video != nil else { return }
        // One SVC encoding: its spatial layers are what the player chooses among.
        let spatial = upstream.isSimulcast ? [] : upstream.spatialLayers
        let svc = !spatial.isEmpty
        if svc && !state.forwarder.choosesSpatialLayers && upstream.dependencyDescriptorID != nil {
            warnWithoutDependencyDescriptor()
        }
        state.forwarder.choosesSpatialLayers = svc
        let layers = svc ? spatial : upstream.measuredLayers
        let current = svc ? state.forwarder.currentSpatial : state.forwarder.currentLayer
        let target = svc ? state.forwarder.targetSpatial : state.forwarder.targetLayer
        let wanted = constraints.video ?? VideoConstraints()
        var choice: LayerSelector.Choice
        if let chosen = LayerSelector.choose(layers: layers, constraints: wanted, bandwidthKbps: limitingBandwidth(now: now),
                                             current: current) {
            choice = chosen
        } else if target == Int.max {
            // Nothing measured yet: start from what the constraints say with no sizes known.
            let unknown = layers.map { LayerSelector.Layer(index: $0.index, width: 0, height: 0) }
            guard let chosen = LayerSelector.choose(layers: unknown, constraints: wanted, bandwidthKbps: nil) else { return }
            choice = chosen
        } else {
            return
        }
        let allSent = layers.map { layer in
            var sent = layer
            sent.active = true
            return sent
        }
        // Dynacast pauses encodings; an SVC encoding's layers are all in it.
        let ideal = svc ? nil : LayerSelector.choose(layers: allSent, constraints: wanted,
                                                     bandwidthKbps: limitingBandwidth(now: now), current: current)?.layer
        if ideal != idealLayer {
            idealLayer = ideal
            upstream.wantedLayersChanged()
        }
        if holdsUncongestedDrop(choice, target: target, layers: layers, now: now) {
            choice = LayerSelector.Choice(layer: target, reason: targetReason,
                                          notEnoughBandwidth: choice.notEnoughBandwidth)
        }
        let wasProbing = state.prober.isProbing
        state.prober.consider(choice: choice, layers: layers, constraints: wanted,
                              current: current,
                        remoteFractionLost: feedback.remoteFractionLost, estimate: &feedback.estimate, now: now)
        if state.prober.isProbing && !wasProbing { transport.worker.tickSoon(self) }
        // On the lowest layer with an estimate below even its rate, only its base temporal
        // layer: a quarter of the frames and about 40% of the bits with three layers, so that
        // key frames and their retransmissions still get through a link the whole layer would
        // keep full. (A drop held above, `holdsUncongestedDrop`, keeps its frame rate.)
        let baseOnly = choice.notEnoughBandwidth
            && layers.filter(\.active).min(by: LayerSelector.ranksBelow)?.index == choice.layer
        state.forwarder.maxTemporalLayer = baseOnly ? 0 : Forwarder.temporalLayerLimit(
            fpsCap: wanted.fps, timing: upstream.layerTiming(svc ? 0 : choice.layer))
        chooseDecodeTarget(spatial: svc ? choice.layer : Int.max, upstream: upstream, now: now)
        if svc {
            if choice.layer != target {
                state.forwarder.targetSpatial = choice.layer
                targetReason = choice.reason
            }
        } else if choice.layer != state.forwarder.targetLayer {
            state.forwarder.targetLayer = choice.layer
            targetReason = choice.reason
            // Before the key-frame request: an edge asks its origin for the layer first.
            upstream.wantedLayersChanged()
            if state.forwarder.currentLayer != nil { requestKeyFrameUnlessCached(layer: choice.layer, now: now) }
        }
        if choice.notEnoughBandwidth != notEnoughBandwidthReported {
            notEnoughBandwidthReported = choice.notEnoughBandwidth
            if choice.notEnoughBandwidth {
                report(.notEnoughBandwidth(parameters.handle, kbps: Int(bandwidthKbps ?? 0)))
            }
        }
    }

    /// A step down for bandwidth that no congestion backs (the estimate merely dipped under
    /// the layer's measured rate, as when a key frame swells it for a second) waits until the
    /// shortfall has lasted `uncongestedDropMicros`: stepping at once made a player that had
    /// just climbed back to the top flap down and up. Loss or queueing steps down at once.
    private func holdsUncongestedDrop(_ choice: LayerSelector.Choice, target targetIndex: Int, layers: [LayerSelector.Layer],
                                      now: UInt64) -> Bool {
        guard choice.reason == .bandwidth, targetIndex != Int.max, choice.layer != targetIndex,
              let target = layers.first(where: { $0.index == targetIndex }),
              let chosen = layers.first(where: { $0.index == choice.layer }),
              LayerSelector.ranksBelow(chosen, target), !feedback.estimate.congested(now: now) else {
            uncongestedDropSince = nil
            return false
        }
        guard let since = uncongestedDropSince else {
            uncongestedDropSince = now
            return true
        }
        if now &- since < Self.uncongestedDropMicros { return true }
        uncongestedDropSince = nil
        return false
    }

    /// Chromium decodes an SVC stream's pictures only with the dependency descriptor: a player
    /// that did not offer it gets the frames and shows nothing. Said once per player.
    private func warnWithoutDependencyDescriptor() {
        guard parameters.video?.extensions.dependencyDescriptor == nil else { return }
        transport.worker.log?.warn("stream \(parameters.stream): player \(parameters.handle) plays an SVC stream without "
                                   + "the dependency descriptor extension, which its decoder needs; offer it "
                                   + "(docs/protocol.md, \"SVC\")",
                                   [.stream(parameters.stream), .handle("\(parameters.handle)")])
    }

    /// The decode target for the chosen spatial layer (Int.max: all) and temporal cap, when the
    /// source sends the dependency descriptor.
    private func chooseDecodeTarget(spatial: Int, upstream: any StreamUpstream, now: UInt64) {
        guard let targets = upstream.dependencyTargets() else { return }
        if targets.generation != state.forwarder.targets.generation { state.forwarder.targets = targets }
        let wanted = targets.target(spatialID: spatial, temporalID: Int(state.forwarder.maxTemporalLayer))
        state.forwarder.wantedTarget = wanted
        let active = state.forwarder.activeTarget
        // A temporal layer up waits for its layer sync; another spatial layer that the current
        // target does not hold, for a key picture, asked for again at each choice (about once a
        // second) until it came.
        if active >= 0, wanted >= 0, active != wanted, active < targets.contained.count,
           targets.contained[active] & (1 << UInt32(wanted)) == 0,
           targets.spatialID(ofTarget: active) != targets.spatialID(ofTarget: wanted) {
            upstream.requestKeyFrame(layer: 0)
        }
    }

    /// The estimate the selector should respect. With `quality: auto` that is always the
    /// estimate. A named quality is held below what it asked for only while the path shows
    /// congestion (loss, queueing, a falling REMB): a REMB that is merely low says nothing
    /// about a higher layer, since a receiver's estimate never rises far above what it gets.
    private func limitingBandwidth(now: UInt64) -> Double? {
        guard let value = bandwidthKbps else { return nil }
        if (constraints.video?.quality ?? .auto) == .auto { return value }
        if feedback.estimate.congested(now: now) { return value }
        // Held low by congestion before: stay with the estimate until probes raise it, or a
        // steady cap would bounce the player between layers.
        return targetReason == .bandwidth ? value : nil
    }
}
