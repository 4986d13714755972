import SluiceVocabulary

/// What the data channel stack tells the control plane about one handle, which spells it as
/// a `streamEvent` (SluiceControl's EventWords).
public enum DataChannelEvent: Equatable, Sendable {
    public enum DropReason: String, Sendable {
        /// The sender's session went over `messagesPerSecond` or `bytesPerSecond`.
        case rateLimit
        /// A message over the server's `max-message-size` (or the receiver's).
        case tooLarge
        /// The receiver's SCTP send buffer is full: it reads too slowly.
        case backlog
    }

    case opened(handle: StreamHandle, label: String, id: UInt16)
    case closed(handle: StreamHandle, label: String, id: UInt16)
    /// Told once per episode: the first drop after a clean second. `count` is the handle's
    /// total for this reason so far.
    case dropped(handle: StreamHandle, label: String, reason: DropReason, count: UInt64)
}
