import SluiceVocabulary

/// A `precall` (or `POST /precall`) as the signaling layer checked it.
public struct PrecallRequest: Sendable {
    public var session: SessionID
    public var offer: String
    /// 1...10.
    public var seconds: Int
    public var maxKbps: Int

    public init(session: SessionID, offer: String, seconds: Int, maxKbps: Int) {
        self.session = session
        self.offer = offer
        self.seconds = seconds
        self.maxKbps = maxKbps
    }
}
