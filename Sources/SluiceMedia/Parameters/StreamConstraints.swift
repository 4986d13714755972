public struct StreamConstraints: Sendable, Equatable {
    /// false: this kind is not sent (publish) or not received (play).
    public var audio: Bool
    public var audioBitrateKbps: Int?
    /// nil when `video: false`.
    public var video: VideoConstraints?

    public init(audio: Bool = true, audioBitrateKbps: Int? = nil, video: VideoConstraints? = VideoConstraints()) {
        self.audio = audio
        self.audioBitrateKbps = audioBitrateKbps
        self.video = video
    }
}
