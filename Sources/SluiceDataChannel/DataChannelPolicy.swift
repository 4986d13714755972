/// An app's rules for data channels (`apps[].dataChannels`, docs/protocol.md section 7).
public struct DataChannelPolicy: Equatable, Sendable {
    /// Whether a player's messages reach the other players too (not only the publisher).
    public var playersReachPlayers: Bool
    /// What one session may send, over all its handles and channels; 0: no limit. The
    /// bucket holds one second's worth, so a burst up to the rate passes.
    public var messagesPerSecond: Int
    public var bytesPerSecond: Int

    public init(playersReachPlayers: Bool = false, messagesPerSecond: Int = 1_000, bytesPerSecond: Int = 16_777_216) {
        self.playersReachPlayers = playersReachPlayers
        self.messagesPerSecond = messagesPerSecond
        self.bytesPerSecond = bytesPerSecond
    }
}
