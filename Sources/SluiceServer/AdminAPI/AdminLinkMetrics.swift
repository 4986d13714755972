import SluiceControl

/// The relay links' families of `/metrics` (docs/cluster.md, "Relay links"): how many links
/// this node serves as an origin and holds as an edge, and the origin's links per edge node,
/// so one link per edge and stream can be seen from outside; and the packets the links sent, so
/// the relay's cost (one copy per stream and edge, not per player) can be too.
enum AdminLinkMetrics {
    struct Input {
        var origin: [LinkView] = []
        /// Links this node holds as an edge (one per relayed stream).
        var edge = 0
        /// What the links this node serves sent (`MediaEngine.linkPackets`).
        var packets = LinkPacketFigures()
        /// Packets per layer of the links this node holds (docs/cluster.md, "Layers on a link").
        var layerPackets: [LinkLayerPackets] = []
    }

    static func families(_ input: Input) -> [PrometheusMetricFamily] {
        var links = PrometheusMetricFamily(
            name: "sluice_cluster_links",
            help: "Relay links between nodes: served to edges (role origin) and held from origins (role edge).",
            kind: .gauge)
        links.add(input.origin.count, labels: [("role", "origin")])
        links.add(input.edge, labels: [("role", "edge")])
        var byEdge = PrometheusMetricFamily(name: "sluice_cluster_links_by_edge",
                                            help: "Relay links this node serves as an origin, per edge node.", kind: .gauge)
        var counts: [String: Int] = [:]
        for view in input.origin { counts[view.edgeNode, default: 0] += 1 }
        for (edge, count) in counts.sorted(by: { $0.key < $1.key }) { byEdge.add(count, labels: [("edge", edge)]) }
        var packets = PrometheusMetricFamily(
            name: "sluice_cluster_link_packets_total",
            help: "RTP packets this node sent on relay links as an origin (forwarded and retransmitted), closed links included.",
            kind: .counter)
        packets.add(input.packets.total, labels: [("role", "origin")])
        var perLink = PrometheusMetricFamily(
            name: "sluice_cluster_link_stream_packets",
            help: "RTP packets sent so far on the live relay link of a stream to an edge node (gone with the link).",
            kind: .gauge)
        for link in input.packets.links {
            perLink.add(link.packets, labels: [("edge", link.edgeNode), ("stream", link.stream)])
        }
        var layers = PrometheusMetricFamily(
            name: "sluice_cluster_link_layer_packets_total",
            help: "Video packets received per layer on the relay links this node holds as an edge (since each link opened).",
            kind: .counter)
        for entry in input.layerPackets {
            layers.add(entry.packets, labels: [("stream", entry.stream), ("layer", String(entry.layer))])
        }
        return [links, byEdge, packets, perLink, layers]
    }
}
