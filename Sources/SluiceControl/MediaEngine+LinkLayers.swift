import SluiceMedia

extension MediaEngine {
    /// The links this node holds as an edge, per video layer; control thread.
    public var edgeLinkLayerPackets: [LinkLayerPackets] {
        edgeLinkState.sorted { $0.key < $1.key }.flatMap { stream, link in
            (link.counters?.layerPackets ?? []).enumerated().map {
                LinkLayerPackets(stream: stream, layer: $0.offset, packets: $0.element)
            }
        }
    }
}
