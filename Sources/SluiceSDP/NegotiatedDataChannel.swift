/// An accepted `m=application ... webrtc-datachannel` section.
public struct NegotiatedDataChannel: Sendable, Hashable {
    public var mid: String
    /// The client's a=sctp-port (5000 when absent).
    public var remoteSCTPPort: Int
    public var remoteMaxMessageSize: Int?
    /// What the answer announced for the server.
    public var localSCTPPort: Int
    public var localMaxMessageSize: Int

    public init(mid: String, remoteSCTPPort: Int, remoteMaxMessageSize: Int?, localSCTPPort: Int, localMaxMessageSize: Int) {
        self.mid = mid
        self.remoteSCTPPort = remoteSCTPPort
        self.remoteMaxMessageSize = remoteMaxMessageSize
        self.localSCTPPort = localSCTPPort
        self.localMaxMessageSize = localMaxMessageSize
    }
}
