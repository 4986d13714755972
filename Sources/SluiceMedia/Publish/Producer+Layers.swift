import SluiceRTP
import SluiceTransport
import SluiceVocabulary
import SluiceWire

/// A producer's simulcast layers as the router's players and the layer selector see them.
extension Producer {
    /// A relay link's producer takes the origin's figures for the layers it does not carry
    /// now (`originLayer`).
    func selectorLayers(now: UInt64) -> [LayerSelector.Layer] {
        state.layers.indices.map { i in
            if let origin = originLayer(i, now: now) {
                return LayerSelector.Layer(index: i, width: Int(origin.width), height: Int(origin.height),
                                           fps: Double(origin.fpsCenti) / 100, bitrateKbps: Double(origin.bitrateKbps),
                                           active: origin.active)
            }
            let layer = state.layers[i]
            return LayerSelector.Layer(index: i, width: layer.width, height: layer.height, fps: layer.frames.fps,
                                       bitrateKbps: layer.selectorKbps(now: now), active: layer.isActive(now: now))
        }
    }

    /// The publisher's wall-clock time (µs) of an RTP timestamp of `layer`, from its last
    /// sender report; nil before one arrived. Layers have their own RTP clocks, so a switch
    /// maps both sides through their reports to keep the player's timestamps true.
    func captureMicros(layer: Int, timestamp: UInt32) -> Int64? {
        guard state.layers.indices.contains(layer), state.layers[layer].senderReportMicros > 0,
              let clockRate = videoParameters?.clockRate else { return nil }
        let delta = Int64(Int32(bitPattern: timestamp &- state.layers[layer].senderReportRTP))
        return Int64(state.layers[layer].senderReportMicros) + delta * 1_000_000 / Int64(clockRate)
    }

    /// Frame rate and temporal layer count of a layer (1 when it has no temporal layers).
    func layerTiming(_ layer: Int) -> (fps: Double, temporalLayers: Int) {
        guard state.layers.indices.contains(layer) else { return (0, 1) }
        if state.layers[layer].frames.fps == 0, let origin = originLayer(layer, now: MonotonicClock.nowMicros()) {
            return (Double(origin.fpsCenti) / 100, state.layers[layer].temporalLayers)
        }
        return (state.layers[layer].frames.fps, state.layers[layer].temporalLayers)
    }

    func layerSize(_ layer: Int) -> (width: Int, height: Int) {
        guard state.layers.indices.contains(layer) else { return (0, 0) }
        if state.layers[layer].width == 0, let origin = originLayer(layer, now: MonotonicClock.nowMicros()) {
            return (Int(origin.width), Int(origin.height))
        }
        return (state.layers[layer].width, state.layers[layer].height)
    }
}

extension Producer {
    /// The decode targets of the one encoding's dependency structure, when the publisher sends
    /// the dependency descriptor and a structure came; nil otherwise (and with simulcast, whose
    /// encodings players choose among instead).
    func dependencyTargets() -> DependencyTargets? {
        guard state.layers.count == 1, let table = state.layers[0].dependencies, table.isLoaded else { return nil }
        return DependencyTargets(table)
    }

    /// The spatial layers of one SVC encoding, as the selector sees layers: each its size (from
    /// the structure), its own frame rate, and what its decode target with every temporal layer
    /// costs. Empty without spatial layers.
    func spatialLayers(now: UInt64) -> [LayerSelector.Layer] {
        guard state.layers.count == 1, let table = state.layers[0].dependencies, table.isLoaded, table.maxSpatialID > 0,
              let meters = state.layers[0].targetMeters else { return [] }
        let layer = state.layers[0]
        return (0...table.maxSpatialID).map { spatial in
            let size = table.resolution(spatialID: spatial) ?? (0, 0)
            let target = table.decodeTarget(spatialID: spatial, temporalID: 255)
            return LayerSelector.Layer(index: spatial, width: size.width, height: size.height,
                                       fps: meters.framesPerSecond(spatialID: spatial),
                                       bitrateKbps: meters.kbps(target: target), active: layer.isActive(now: now))
        }
    }
}

extension Producer: StreamSource {
    var dependencyDescriptorID: UInt8? { videoParameters?.extensions.dependencyDescriptor }

    /// The layers as a worker that relays this stream needs them (`SourceSnapshot`).
    func snapshot(now: UInt64) -> SourceSnapshot {
        var snapshot = SourceSnapshot()
        snapshot.present = true
        snapshot.isSimulcast = isSimulcast
        snapshot.clockRate = videoParameters?.clockRate ?? 90_000
        snapshot.dependencyDescriptorID = dependencyDescriptorID
        snapshot.spatialLayers = spatialLayers(now: now)
        snapshot.dependencyTargets = dependencyTargets()
        let selector = selectorLayers(now: now)
        let stats = layerStats(now: now)
        snapshot.layers = state.layers.indices.map { i in
            SourceSnapshot.Layer(selector: selector[i], stats: stats[i], fps: state.layers[i].frames.fps,
                                 temporalLayers: state.layers[i].temporalLayers,
                                 senderReportMicros: state.layers[i].senderReportMicros,
                                 senderReportRTP: state.layers[i].senderReportRTP)
        }
        return snapshot
    }
}
