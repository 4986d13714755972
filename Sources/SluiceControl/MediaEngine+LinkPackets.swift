import SluiceMedia
import SluiceVocabulary

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

extension MediaEngine {
    /// Control thread (it reads the origin's link records); the counts themselves are read
    /// off the workers' ledgers.
    public var linkPackets: LinkPacketFigures {
        var figures = LinkPacketFigures()
        var live: [StreamHandle: UInt64] = [:]
        for streams in workerStreams {
            let read = streams.linkPackets.read()
            figures.total &+= read.total
            live.merge(read.live) { a, _ in a }
        }
        figures.links = originLinks.compactMap { id, origin in
            // A link the worker has not made yet (or has removed) counts nothing.
            live[origin.handle].map {
                LinkPacketFigures.Link(link: id, stream: origin.stream, edgeNode: origin.edgeNode, packets: $0)
            }
        }.sorted { $0.link < $1.link }
        return figures
    }
}
