/// a=msid-semantic (e.g. "WMS *").
public struct MsidSemantic: Sendable, Hashable {
    public var semantics: String
    public var identifiers: [String]

    public init(semantics: String = "WMS", identifiers: [String] = []) {
        self.semantics = semantics
        self.identifiers = identifiers
    }
}
