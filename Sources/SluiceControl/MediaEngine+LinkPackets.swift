import SluiceMedia
import SluiceVocabulary

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
