import SluiceMedia
import SluiceVocabulary

public struct PublishRequest: Sendable {
    public var session: SessionID
    public var stream: String
    public var offer: String
    public var constraints: StreamConstraints
    /// Size and rate caps checked against what arrives (`limitExceeded`); none by default.
    public var caps: PublishCaps

    public init(session: SessionID, stream: String, offer: String, constraints: StreamConstraints,
                caps: PublishCaps = PublishCaps()) {
        self.session = session
        self.stream = stream
        self.offer = offer
        self.constraints = constraints
        self.caps = caps
    }
}
