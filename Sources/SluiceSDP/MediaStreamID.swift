/// a=msid (RFC 8830): stream id and optional track id.
public struct MediaStreamID: Sendable, Hashable {
    public var streamID: String
    public var trackID: String?

    public init(streamID: String, trackID: String? = nil) {
        self.streamID = streamID
        self.trackID = trackID
    }
}
