import SluiceMedia
import SluiceTransport
import SluiceVocabulary

/// Relay links between cluster nodes (docs/cluster.md, "Relay links"). On the origin, a link
/// is a consumer of the stream that forwards every layer on its own SSRC to one edge node; on
/// the edge, the link is the stream's source: a producer whose publisher is the origin.
extension MediaEngine {
    /// Origin: a link of `request.stream` to the edge that asks. Control thread.
    public func openLink(_ request: LinkRequest) throws(MediaError) -> LinkAnswer {
        throw .streamNotFound
    }

    /// Origin: the edge no longer wants the link (or it is gone).
    public func closeLink(_ link: String) {}

    /// Origin: the links this node serves now.
    public var linkViews: [LinkView] { [] }

    /// Edge: the links this node holds now, by stream.
    public var edgeLinks: [String: String] { [:] }

    /// The codecs of a stream published on this node (for the cluster's stream record).
    public func codecs(of stream: String) -> StreamCodecs? { nil }

    /// Edge, about once a second from the control thread: waiting players of streams that
    /// another node publishes now get a link; relayed streams that no node publishes any more
    /// end for their players.
    public func checkRemoteStreams() {}
}
