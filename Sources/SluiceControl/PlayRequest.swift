import SluiceMedia
import SluiceVocabulary

public struct PlayRequest: Sendable {
    public var session: SessionID
    public var stream: String
    public var offer: String
    public var constraints: StreamConstraints
    public var wait: Bool

    public init(session: SessionID, stream: String, offer: String, constraints: StreamConstraints, wait: Bool) {
        self.session = session
        self.stream = stream
        self.offer = offer
        self.constraints = constraints
        self.wait = wait
    }
}
