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
