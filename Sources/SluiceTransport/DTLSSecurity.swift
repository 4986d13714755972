/// The server's DTLS identity: one certificate made at start and the context built on it,
/// shared (read-only) by every transport of every worker.
// @unchecked: immutable after init: the certificate and SSL_CTX are only read, which OpenSSL allows from many threads.
public final class DTLSSecurity: @unchecked Sendable {
    public let certificate: DTLSCertificate
    public let context: DTLSContext

    public init(certificate: DTLSCertificate, context: DTLSContext) {
        self.certificate = certificate
        self.context = context
    }

    /// - Parameter srtp: the DTLS-SRTP profiles offered and what runs SRTP (`rtc.srtp`,
    ///   `rtc.srtpProfiles`; the SDK takes the defaults: OpenSSL, GCM first).
    public static func make(srtp: SRTPConfiguration = SRTPConfiguration()) throws -> DTLSSecurity {
        let certificate = try DTLSCertificate()
        let context = try DTLSContext(certificate: certificate, srtpProfiles: srtp.profiles, srtpBackend: srtp.backend)
        return DTLSSecurity(certificate: certificate, context: context)
    }

    /// "sha-256" fingerprint for the SDP answer, upper-case hex pairs joined by colons.
    public var fingerprint: String { certificate.fingerprintSHA256 }
}
