import SluiceVocabulary

/// A stream's constraints with the server's defaults applied: both kinds on, no cap.
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

    /// What a client's constraints come to: a kind not named stays on, `true` is on without
    /// limits, `false` off.
    public init(_ request: ConstraintsRequest) {
        self.init()
        switch request.audio {
        case nil, .on?: break
        case .off?: audio = false
        case .limits(let limits)?: audioBitrateKbps = limits.bitrate
        }
        switch request.video {
        case nil, .on?: break
        case .off?: video = nil
        case .limits(let limits)?: video = VideoConstraints(limits)
        }
    }
}
