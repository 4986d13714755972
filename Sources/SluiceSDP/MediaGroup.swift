/// a=group (RFC 5888), e.g. BUNDLE or LS.
public struct MediaGroup: Sendable, Hashable {
    public var semantics: String
    public var mids: [String]

    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }
}
