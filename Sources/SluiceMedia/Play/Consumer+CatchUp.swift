import SluiceRTP
import SluiceWire

/// Instant join (docs/design.md "Instant join"): a player that needs a key frame of a layer
/// starts from the one the router marked in the source's buffer, walks the cached packets to
/// the live edge at `CatchUp`'s pace, and goes on live. Only when nothing usable is cached is
/// the publisher asked for a key frame.
extension Consumer {
    /// Starts the walk from `layer`'s cached key frame; false when there is none to start from.
    func startCatchUp(layer: Int, now: UInt64) -> Bool {
        guard let upstream, let video = parameters.video,
              let mark = upstream.cachedKeyFrame(layer: layer, now: now, maxAgeMicros: cacheMaxAge) else { return false }
        if let refused = refusedCache, refused.layer == layer, refused.generation == mark.generation { return false }
        let layerKbps = upstream.measuredLayers.first { $0.index == layer }?.bitrateKbps ?? 0
        state.catchUp = CatchUp(layer: layer, from: mark, layerKbps: layerKbps, estimateKbps: feedback.bandwidthKbps,
                          clockRate: video.clockRate, now: now)
        state.catchUpLayer = layer
        transport.worker.tickSoon(self)
        let sentBefore = sender.state.video?.packets ?? 0
        continueCatchUp(now: now)
        guard sender.state.video?.packets ?? 0 > sentBefore else {
            // The cached key frame did not start the video (another layer became the target,
            // or the packet was not what the mark said): ask the publisher, as without a cache.
            endCatchUp()
            refusedCache = (layer, mark.generation)
            return false
        }
        cacheStarts += 1
        return true
    }

    /// Sends what the pace allows now, from the buffer, up to the live edge; called for each
    /// live packet of the layer and on every worker tick while the walk lasts.
    @inline(never)
    func continueCatchUp(now: UInt64) {
        guard var walk = state.catchUp, let upstream, let mark = upstream.keyFrameMark(layer: walk.layer) else {
            endCatchUp()
            return
        }
        if walk.skip(to: mark) { state.forwarder.restartVideoAfterSkip() }
        guard Int(mark.newestSequence &- walk.next) < RetransmissionBuffer.slots - 16 else {
            // The live edge ran so far ahead that the buffer is overwriting what is next: start
            // over on a key frame the publisher sends.
            endCatchUp()
            state.forwarder.restart(.video)
            upstream.requestKeyFrame(layer: walk.layer)
            return
        }
        let clockRate = walk.clockRate
        while !walk.reachedLiveEdge(newestSequence: mark.newestSequence) {
            guard let bytes = upstream.storedPacket(layer: walk.layer, sequence: walk.next),
                  let packet = RTPPacket(parsing: bytes) else {
                // Lost upstream and not repaired yet: a gap the player sees and may NACK.
                walk.advance(size: 0)
                continue
            }
            guard walk.mayGo(size: bytes.count, timestamp: packet.timestamp, now: now) else { break }
            if walk.startsLaterFrame(timestamp: packet.timestamp) {
                state.forwarder.retimeVideo(timestamp: packet.timestamp,
                                      to: walk.outTimestamp(lastOut: state.forwarder.videoLastOutTimestamp, now: now))
            }
            var (isKeyFrame, temporalLayer, vp8) = videoCodec.describe(UnsafeRawBufferPointer(packet.payload))
            let dependency = cachedDependency(packet, upstream: upstream)
            if let dependency {
                // The descriptor alone: an encrypted payload's key-frame bit says nothing, and
                // a stream in the clear attaches its structure to exactly its key frames.
                isKeyFrame = dependency.attachesStructure
                temporalLayer = dependency.temporalID
            }
            var item = ForwardedPacket(packet: packet, kind: .video, layer: walk.layer, isKeyFrame: isKeyFrame,
                                       temporalLayer: temporalLayer, vp8: vp8, clockRate: clockRate, audioLevel: nil,
                                       now: now)
            item.dependency = dependency
            sendCached(item)
            walk.firstFrameSent(out: state.forwarder.videoLastOutTimestamp, now: now)
            walk.advance(size: bytes.count)
        }
        if walk.reachedLiveEdge(newestSequence: mark.newestSequence) {
            endCatchUp()
        } else {
            state.catchUp = walk
        }
    }

    /// A joining player's keys are up: its cached key frame goes now, in the same turn as the
    /// DTLS flight that finished the handshake (queued before it), rather than with the layer's
    /// next live packet, up to a frame interval later (33-50 ms at 20-30 fps: most of the gap
    /// between DTLS and the first frame in the join measurements). False when nothing cached
    /// fits, and the next packet decides as before.
    func startCatchUpOnConnect(now: UInt64) -> Bool {
        guard instantJoin, state.catchUpLayer < 0, state.forwarder.currentLayer == nil,
              state.forwarder.video?.enabled == true,
              let upstream else { return false }
        let target = state.forwarder.targetLayer
        if target != Int.max { return startCatchUp(layer: target, now: now) }
        // No layer chosen yet (nothing measured): the forwarder starts on any layer's key frame.
        for layer in upstream.measuredLayers
        where upstream.cachedKeyFrame(layer: layer.index, now: now, maxAgeMicros: cacheMaxAge) != nil {
            return startCatchUp(layer: layer.index, now: now)
        }
        return false
    }

    /// A join may start from an older key frame than a switch or a resume (`KeyFrameMark`).
    var cacheMaxAge: UInt64 {
        sender.state.video?.packets ?? 0 == 0 ? KeyFrameMark.maxJoinAgeMicros : KeyFrameMark.maxSwitchAgeMicros
    }

    /// A cached packet's dependency descriptor, read against the walk's own table. Its
    /// generation is 0, which no source's structure has: the forwarder sends the walk's frames
    /// by their layers, and the player's decode target starts at the first live picture.
    private func cachedDependency(_ packet: RTPPacket, upstream: any StreamUpstream) -> DependencyFrame? {
        if upstream.dependencyDescriptorID == nil, videoCodec == .vp9, !upstream.isSimulcast {
            // The same reading the producer makes, so the walk sends only the player's layers.
            let payload = UnsafeRawBufferPointer(packet.payload)
            guard let descriptor = VP9PayloadDescriptor(parsing: payload) else { return nil }
            if state.catchUpVP9 == nil {
                state.catchUpVP9 = VP9Dependency()
                state.catchUpDependencies = DependencyTemplateTable()
            }
            guard var frame = state.catchUpVP9!.frame(descriptor, payload: payload, timestamp: packet.timestamp,
                                                      table: &state.catchUpDependencies!) else { return nil }
            frame.generation = 0
            return frame
        }
        guard let id = upstream.dependencyDescriptorID, let value = packet.extensionValue(id: id),
              let start = value.baseAddress, let base = packet.buffer.baseAddress else { return nil }
        if state.catchUpDependencies == nil { state.catchUpDependencies = DependencyTemplateTable() }
        guard var frame = DependencyFrame.read(UnsafeRawBufferPointer(value), offset: start - base,
                                               table: &state.catchUpDependencies!) else { return nil }
        frame.generation = 0
        return frame
    }

    func endCatchUp() {
        guard state.catchUpLayer >= 0 else { return }
        state.catchUp = nil
        state.catchUpLayer = -1
    }

    /// A key frame request for joining, resuming or switching, unless instant join has one
    /// cached for the layer the player is heading for (nil: its target, or any layer before
    /// it has one).
    func requestKeyFrameUnlessCached(layer: Int?, now: UInt64) {
        guard let upstream else { return }
        if instantJoin {
            let target = state.forwarder.targetLayer
            let candidates = layer.map { $0...$0 } ?? (target != Int.max ? target...target : 0...7)
            for candidate in candidates
            where upstream.cachedKeyFrame(layer: candidate, now: now, maxAgeMicros: cacheMaxAge) != nil { return }
        }
        upstream.requestKeyFrame(layer: layer)
    }
}
