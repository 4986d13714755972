/// One data channel's counters, as `getStats` and `/metrics` show them. "Received" is what
/// the handle's peer sent to the server; "sent" what the server sent to the peer.
public struct DataChannelStats: Equatable, Sendable {
    public var id: UInt16
    public var label: String
    public var `protocol`: String
    public var ordered: Bool
    public var maxRetransmits: Int?
    public var maxPacketLifeTime: Int?
    public var messagesReceived: UInt64 = 0
    public var bytesReceived: UInt64 = 0
    public var messagesSent: UInt64 = 0
    public var bytesSent: UInt64 = 0
    /// Messages from the peer that were not forwarded (rate limit, too large), and messages
    /// to the peer that did not fit its send buffer.
    public var messagesDropped: UInt64 = 0

    public init(id: UInt16, label: String, protocol: String, reliability: ChannelReliability) {
        self.id = id
        self.label = label
        self.protocol = `protocol`
        ordered = reliability.ordered
        switch reliability.limit {
        case .reliable: break
        case .retransmits(let n): maxRetransmits = Int(n)
        case .lifetimeMs(let ms): maxPacketLifeTime = Int(ms)
        }
    }
}
