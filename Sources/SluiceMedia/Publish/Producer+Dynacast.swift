/// Dynacast: the publisher hears which of its simulcast layers have a taker (`LayerPauses`,
/// docs/protocol.md section 6, "Dynacast"), on the worker's tick.
extension Producer {
    /// Cheap unless the stream's wanted layers changed (a flag) or `due` (once a second, when
    /// a grace time may have run out).
    func updateLayerPauses(now: UInt64, due: Bool) {
        guard state.layerPauses != nil, let router else { return }
        guard router.takeWantedLayersChanged() || due else { return }
        guard let wanted = state.layerPauses!.update(wanted: router.wantedVideoLayers(), lowest: lowestLayer, now: now)
        else { return }
        let indices = state.layers.indices.filter { wanted & (1 << UInt32($0)) != 0 }
        report(.layersWanted(parameters.handle, rids: indices.compactMap { state.layers[$0].rid?.description },
                             layers: indices))
    }

    /// The layer with the smallest measured size (the first, before any is measured).
    var lowestLayer: Int {
        var lowest = 0
        var area = Int.max
        for (i, layer) in state.layers.enumerated() where layer.width * layer.height > 0 && layer.width * layer.height < area {
            lowest = i
            area = layer.width * layer.height
        }
        return lowest
    }
}
