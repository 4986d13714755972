/// Which implementation runs SRTP (`rtc.srtp`). Sluice's own over OpenSSL is the default;
/// Debian's libsrtp2, built on NSS, stays as a fallback and as the tests' reference.
public enum SRTPBackend: String, Sendable, CaseIterable {
    /// `OpenSSLSRTPContext`: one key schedule per session, no allocation per packet, and a
    /// cost per packet that does not grow with the number of sessions.
    case openSSL = "openssl"
    /// `LibSRTPContext`: libsrtp2 as Debian builds it. NSS rebuilds its AES context for every
    /// packet and finds keys under a lock that slows as keys grow.
    case libsrtp = "libsrtp"
}

/// How a process's transports run SRTP: the back end, and the DTLS-SRTP profiles offered in
/// order of preference (`rtc.srtp`, `rtc.srtpProfiles`).
public struct SRTPConfiguration: Sendable, Equatable {
    public var backend: SRTPBackend
    public var profiles: [SRTPProfile]

    public static let defaultProfiles: [SRTPProfile] = [.aeadAES128GCM, .aes128CMHMACSHA1_80]

    public init(backend: SRTPBackend = .openSSL, profiles: [SRTPProfile] = SRTPConfiguration.defaultProfiles) {
        self.backend = backend
        self.profiles = profiles
    }
}
