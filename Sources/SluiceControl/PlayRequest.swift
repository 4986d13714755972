import SluiceDataChannel
import SluiceMedia
import SluiceVocabulary

public struct PlayRequest: Sendable {
    public var session: SessionID
    public var stream: String
    public var offer: String
    public var constraints: StreamConstraints
    public var wait: Bool
    /// The app's data channel rules; nil: a `webrtc-datachannel` m-line is refused (port 0).
    public var dataChannels: DataChannelPolicy? = DataChannelPolicy()
    /// The player starts from a layer's cached key frame when there is one (`apps[].instantJoin`).
    public var instantJoin = true
    /// Opus RED (`apps[].red`): answered after Opus when offered, so the player gets RED as its
    /// publisher sends it; without, it gets the primary Opus alone.
    public var red = true

    public init(session: SessionID, stream: String, offer: String, constraints: StreamConstraints, wait: Bool) {
        self.session = session
        self.stream = stream
        self.offer = offer
        self.constraints = constraints
        self.wait = wait
    }
}
