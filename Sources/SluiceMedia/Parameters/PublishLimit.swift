/// A publisher's caps on what it really sends (`PublishCaps`), as named in a
/// `limitExceeded` event or a FAILED status (the words: SluiceControl `EventWords`).
public enum PublishLimit: Sendable, Hashable, CaseIterable {
    case maxWidth, maxHeight, maxFps
}
