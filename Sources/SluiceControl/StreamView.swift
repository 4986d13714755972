import SluiceMedia
import SluiceVocabulary

/// What the admin API shows of one stream (docs/protocol.md section 2).
public struct StreamView: Sendable {
    public var name: String
    public var publisher: HandleStats?
    public var publisherSession: SessionID?
    public var players: [HandleStats]
    public var audioMuted: MuteState
    public var videoMuted: MuteState
}
