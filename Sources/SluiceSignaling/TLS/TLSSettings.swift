/// HTTPS and WSS on the signaling port (`server.tls`): the checked certificate and key, and
/// an optional plain-HTTP port that only redirects to HTTPS.
public struct TLSSettings: Sendable {
    public var credentials: TLSCredentials
    /// A plain-HTTP port answering every request with 308 to the same path over HTTPS; nil: none.
    public var redirectPort: Int?

    public init(credentials: TLSCredentials, redirectPort: Int? = nil) {
        self.credentials = credentials
        self.redirectPort = redirectPort
    }
}
