/// A verified access token (docs/protocol.md section 6, "Access tokens").
public struct AccessToken: Sendable, Equatable {
    /// `iss`: the app the token was minted for.
    public var appKey: String
    /// `sub`: the user's identity, shown in stats, the admin API and hooks.
    public var identity: String?
    /// `exp` and `nbf`, seconds since the epoch.
    public var expiresAt: Double
    public var notBefore: Double?
    public var grants: AccessGrants

    public init(appKey: String, identity: String?, expiresAt: Double, notBefore: Double?, grants: AccessGrants) {
        self.appKey = appKey
        self.identity = identity
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.grants = grants
    }
}
