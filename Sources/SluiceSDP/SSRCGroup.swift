/// a=ssrc-group, e.g. `FID primary rtx` or `SIM low mid high`.
public struct SSRCGroup: Sendable, Hashable {
    public var semantics: String
    public var ssrcs: [UInt32]

    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }
}
