/// What an edge's links carry, per layer (docs/cluster.md, "Layers on a link"): each link
/// carries only the video layers its players need, so these counts show which flow.
public struct LinkLayerPackets: Sendable, Equatable {
    public var stream: String
    public var layer: Int
    /// Packets received on the link for this layer since the link opened (a new link after a
    /// drop counts from 0).
    public var packets: UInt64
}
