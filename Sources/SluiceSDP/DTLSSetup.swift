/// a=setup (RFC 4145 and RFC 8842).
public enum DTLSSetup: String, Sendable, Hashable, CaseIterable {
    case actpass, active, passive, holdconn
}
