/// The server's DTLS identity: one certificate made at start and the context built on it,
/// shared (read-only) by every transport of every worker.
public final class DTLSSecurity: @unchecked Sendable {
    public let certificate: DTLSCertificate
    public let context: DTLSContext

    public init(certificate: DTLSCertificate, context: DTLSContext) {
        self.certificate = certificate
        self.context = context
    }

    public static func make() throws -> DTLSSecurity {
        let certificate = try DTLSCertificate()
        return DTLSSecurity(certificate: certificate, context: try DTLSContext(certificate: certificate))
    }

    /// "sha-256" fingerprint for the SDP answer, upper-case hex pairs joined by colons.
    public var fingerprint: String { certificate.fingerprintSHA256 }
}
