/// The kind of a track: what the SDP negotiated for an m-line, what a worker forwards, what
/// a `mute` names. The words every module shares live in SluiceVocabulary (docs/design.md).
public enum MediaKind: String, Sendable, Hashable {
    case audio
    case video
}
