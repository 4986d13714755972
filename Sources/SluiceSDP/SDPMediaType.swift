/// The media field of an m= line (RFC 8866 section 5.14): what the parser reads and the writer
/// writes, including kinds Sluice rejects. Not `MediaKind` (SluiceVocabulary), which names
/// the two kinds of track a negotiated session carries.
public enum SDPMediaType: Sendable, Hashable {
    case audio, video, application
    case other(String)

    public init(name: String) {
        switch name.lowercased() {
        case "audio": self = .audio
        case "video": self = .video
        case "application": self = .application
        default: self = .other(name)
        }
    }

    public var name: String {
        switch self {
        case .audio: return "audio"
        case .video: return "video"
        case .application: return "application"
        case .other(let name): return name
        }
    }
}
