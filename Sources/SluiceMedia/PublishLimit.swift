/// A publisher's caps on what it really sends (`PublishCaps`), as named in a
/// `limitExceeded` event or a "Failed by limit" status (the words: SluiceControl).
public enum PublishLimit: Sendable, Hashable, CaseIterable {
    case maxWidth, maxHeight, maxFps
}
