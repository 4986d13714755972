/// What this node's relay links sent as an origin (for /metrics): the relay's cost is one copy
/// of a stream per edge node, whatever the edge's players, and these counts let a test or an
/// operator see it against the publisher's packets (docs/cluster.md, "Relay links").
public struct LinkPacketFigures: Sendable, Equatable {
    /// RTP packets sent on every link since the start, links since closed included.
    public var total: UInt64 = 0
    /// Each live link's packets so far, with its stream and edge node.
    public var links: [Link] = []

    public struct Link: Sendable, Equatable {
        public var link: String
        public var stream: String
        public var edgeNode: String
        public var packets: UInt64

        public init(link: String, stream: String, edgeNode: String, packets: UInt64) {
            self.link = link
            self.stream = stream
            self.edgeNode = edgeNode
            self.packets = packets
        }
    }

    public init() {}
}
