/// Dynacast: the publisher hears which of its simulcast layers have a taker (`LayerPauses`,
/// docs/protocol.md section 6, "Dynacast"), on the worker's tick.
extension Producer {
    /// Cheap unless the stream's wanted layers changed (a flag) or `due` (once a second, when
    /// a grace time may have run out).
    func updateLayerPauses(now: UInt64, due: Bool) {
        guard state.layerPauses != nil, let router else { return }
        guard router.takeWantedLayersChanged() || due else { return }
        // The lowest by the selector's own ranking (size, else bitrate, else index).
        let lowest = selectorLayers(now: now).min(by: LayerSelector.ranksBelow)?.index ?? 0
        guard let wanted = state.layerPauses!.update(wanted: router.wantedVideoLayers(), lowest: lowest, now: now)
        else { return }
        let indices = state.layers.indices.filter { wanted & (1 << UInt32($0)) != 0 }
        report(.layersWanted(parameters.handle, rids: indices.compactMap { state.layers[$0].rid?.description },
                             layers: indices))
    }
}
