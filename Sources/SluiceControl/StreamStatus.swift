public enum StreamStatus: String, Sendable {
    case pending = "PENDING"
    case publishing = "PUBLISHING"
    case playing = "PLAYING"
    case stopped = "STOPPED"
    case unpublished = "UNPUBLISHED"
    case failed = "FAILED"

    /// Whether a handle ends with this status (and signaling forgets it).
    /// UNPUBLISHED on a `wait: true` play does not end it: see `MediaEvent.streamStatus.ends`.
    public var isTerminal: Bool {
        switch self {
        case .stopped, .failed, .unpublished: return true
        default: return false
        }
    }
}
