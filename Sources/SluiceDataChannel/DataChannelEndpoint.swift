import SluiceVocabulary

/// One handle's side of the data channels: who it is, which stream it belongs to, and what
/// the SDP agreed. The control plane makes one per publish or play whose offer had a
/// `webrtc-datachannel` m-line that was accepted.
public struct DataChannelEndpoint: Sendable {
    /// Separates the streams of servers that share the process (the in-process tests start
    /// several): one value per server.
    public var scope: Int
    public var handle: StreamHandle
    public var session: SessionID
    public var stream: String
    public var role: StreamRole
    public var localPort: UInt16
    public var remotePort: UInt16
    /// The largest message the server takes (its `a=max-message-size`), and the largest the
    /// peer takes (nil: the RFC 8841 default of 64 KiB, when the offer had no attribute).
    public var maxMessageSize: Int
    public var remoteMaxMessageSize: Int?
    public var policy: DataChannelPolicy
    /// Where this handle's events go (any thread may call it; the stack's thread does).
    public var report: @Sendable (DataChannelEvent) -> Void
    /// A relay link's end (docs/cluster.md, "Data across nodes"), or none for a client's handle.
    public var relay: RelayEnd = .none

    /// The ends of a relay link's association: the origin's is a player of the stream there,
    /// which waits for the edge; the edge's is the stream's publisher there, which starts the
    /// association and opens a channel for each label its players use.
    public enum RelayEnd: Sendable, Equatable {
        case none
        case origin
        case edge
    }

    public init(scope: Int, handle: StreamHandle, session: SessionID, stream: String, role: StreamRole,
                localPort: UInt16, remotePort: UInt16, maxMessageSize: Int, remoteMaxMessageSize: Int?,
                policy: DataChannelPolicy, report: @escaping @Sendable (DataChannelEvent) -> Void) {
        self.scope = scope
        self.handle = handle
        self.session = session
        self.stream = stream
        self.role = role
        self.localPort = localPort
        self.remotePort = remotePort
        self.maxMessageSize = maxMessageSize
        self.remoteMaxMessageSize = remoteMaxMessageSize
        self.policy = policy
        self.report = report
    }

    /// What the peer can take in one message.
    public var peerMaxMessageSize: Int { remoteMaxMessageSize.map { $0 == 0 ? Int.max : $0 } ?? 65_536 }
}
