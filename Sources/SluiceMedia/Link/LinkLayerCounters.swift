import Synchronization

/// An edge's relay link as `/metrics` shows it: packets received per video layer
/// (`sluice_cluster_link_layer_packets_total`), so one can see which layers the link carries
/// (docs/cluster.md, "Layers on a link"). The link's producer publishes its counts once a
/// second, under the lock (off the packet path); the control thread reads them.
package final class LinkLayerCounters: Sendable {
    private let packets = Mutex<[UInt64]>([])

    package init() {}

    func publish(_ counts: [UInt64]) {
        packets.withLock { $0 = counts }
    }

    /// Packets received on the link per video layer, lowest first, since the link opened.
    package var layerPackets: [UInt64] { packets.withLock { $0 } }
}
