import COpenSSL

/// A setup step of OpenSSL failed; the message carries OpenSSL's error queue.
public struct DTLSSetupError: Error, CustomStringConvertible {
    public let description: String
    init(_ step: String) {
        let detail = OpenSSLLibrary.drainErrors()
        description = detail.isEmpty ? step : "\(step): \(detail)"
    }
}

/// A freshly generated ECDSA P-256 key and self-signed certificate, as WebRTC endpoints use:
/// the peer authenticates it by the fingerprint carried in SDP, not by a chain.
public final class DTLSCertificate {
    /// EVP_PKEY*
    let privateKey: OpaquePointer
    /// X509*
    let certificate: OpaquePointer
    /// "AB:CD:..." as the SDP a=fingerprint:sha-256 line carries it.
    public private(set) var fingerprintSHA256 = ""

    public init(commonName: String = "sluice", validityDays: Int = 30) throws {
        OpenSSLLibrary.initialize()
        OpenSSLLibrary.clearErrors()
        guard let key = DTLSCertificate.generateP256Key() else { throw DTLSSetupError("EC P-256 key generation") }
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw DTLSSetupError("X509_new")
        }
        privateKey = key
        certificate = x509

        var serial: UInt64 = 0
        guard withUnsafeMutableBytes(of: &serial, { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), 8) }) == 1
        else { throw DTLSSetupError("RAND_bytes") }
        serial &= 0x7FFF_FFFF_FFFF_FFFF  // a positive INTEGER
        let name = X509_get_subject_name(x509)
        let signed = X509_set_version(x509, 2) == 1  // v3
            && ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serial) == 1
            // Back-dated a day so peers with a skewed clock accept it.
            && X509_gmtime_adj(X509_getm_notBefore(x509), -86_400) != nil
            && X509_gmtime_adj(X509_getm_notAfter(x509), Int(validityDays) * 86_400) != nil
            && X509_set_pubkey(x509, key) == 1
            && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1
            && X509_set_issuer_name(x509, name) == 1
            && X509_sign(x509, key, EVP_sha256()) > 0
        guard signed else { throw DTLSSetupError("self-signed certificate") }
        guard let fingerprint = DTLSCertificate.fingerprint(of: x509, algorithm: "sha-256") else {
            throw DTLSSetupError("certificate digest")
        }
        fingerprintSHA256 = fingerprint
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }

    private static func generateP256Key() -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &key) == 1 else { return nil }
        return key
    }

    /// The digest an SDP a=fingerprint line names ("sha-256", "sha-1", "sha-384", "sha-512").
    static func digest(named algorithm: String) -> OpaquePointer? {
        let name = String(algorithm.lowercased().filter { $0 != "-" })
        guard ["sha1", "sha224", "sha256", "sha384", "sha512"].contains(name) else { return nil }
        return EVP_get_digestbyname(name)
    }

    /// A certificate's digest as uppercase colon-separated hex, or nil for an unknown algorithm.
    static func fingerprint(of x509: OpaquePointer, algorithm: String) -> String? {
        guard let digest = digest(named: algorithm) else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(x509, digest, &bytes, &length) == 1 else { return nil }
        let hex: [Character] = Array("0123456789ABCDEF")
        var text = ""
        text.reserveCapacity(Int(length) * 3)
        for (i, byte) in bytes.prefix(Int(length)).enumerated() {
            if i > 0 { text.append(":") }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0xF)])
        }
        return text
    }

    /// This certificate's fingerprint with another digest.
    public func fingerprint(algorithm: String) -> String? {
        DTLSCertificate.fingerprint(of: certificate, algorithm: algorithm)
    }
}
