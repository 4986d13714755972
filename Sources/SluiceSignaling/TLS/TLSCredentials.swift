import COpenSSL
import SluiceTransport
#if canImport(Glibc)
import Glibc
#endif

/// Why a certificate or key could not be used; the message names the file.
public struct TLSCredentialsError: Error, Equatable, CustomStringConvertible {
    /// The file at fault (the certificate's or the key's path).
    public let path: String
    public let description: String
}

/// A certificate chain and its private key, read from PEM files and checked against each
/// other before anything serves them. Immutable after loading, so it may cross threads.
///
/// The files are read once into OpenSSL objects: a later change on disk (a renewal halfway
/// written) cannot reach a handshake until the next reload has checked it.
// @unchecked: immutable after loading (OpenSSL objects only read, and OpenSSL's X509/EVP_PKEY reads are thread-safe).
public final class TLSCredentials: @unchecked Sendable {
    /// X509*: the leaf, first in the certificate file.
    let leaf: OpaquePointer
    /// X509*: the intermediates that follow it in the file, sent after the leaf.
    let chain: [OpaquePointer]
    /// EVP_PKEY*
    let privateKey: OpaquePointer

    public let certificatePath: String
    public let privateKeyPath: String
    /// The leaf's subject, e.g. "CN=sluice.example".
    public let subject: String
    /// The leaf's notAfter as OpenSSL prints it ("Jan  1 00:00:00 2027 GMT").
    public let notAfter: String
    /// Whether notAfter has passed: browsers will refuse it.
    public let isExpired: Bool
    /// SHA-256 of the leaf (DER), uppercase hex with colons: what a TLS client sees.
    public let fingerprintSHA256: String

    private init(leaf: OpaquePointer, chain: [OpaquePointer], privateKey: OpaquePointer,
                 certificatePath: String, privateKeyPath: String) {
        self.leaf = leaf
        self.chain = chain
        self.privateKey = privateKey
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
        subject = TLSCredentials.subjectLine(of: leaf)
        notAfter = TLSCredentials.printed(X509_get0_notAfter(leaf))
        isExpired = X509_cmp_current_time(X509_get0_notAfter(leaf)) < 0
        fingerprintSHA256 = TLSCredentials.fingerprint(of: leaf)
    }

    deinit {
        X509_free(leaf)
        chain.forEach { X509_free($0) }
        EVP_PKEY_free(privateKey)
    }

    /// Reads the PEM certificate chain and the PEM private key, and checks that the key is the
    /// leaf's. Every failure names its file.
    public static func load(certificatePath: String, privateKeyPath: String) throws(TLSCredentialsError) -> TLSCredentials {
        ERR_clear_error()
        let certificateBytes = try readFile(certificatePath, what: "certificate")
        let keyBytes = try readFile(privateKeyPath, what: "private key")

        var certificates: [OpaquePointer] = []
        let parsedChain = withMemoryBIO(certificateBytes) { bio -> Bool in
            // The leaf may carry trust settings ("TRUSTED CERTIFICATE"); the rest are plain.
            guard let first = PEM_read_bio_X509_AUX(bio, nil, refusePEMPassword, nil) else { return false }
            certificates.append(first)
            while let next = PEM_read_bio_X509(bio, nil, refusePEMPassword, nil) {
                certificates.append(next)
            }
            return true
        }
        ERR_clear_error()  // the chain loop ends on "no start line"
        guard parsedChain == true, let leaf = certificates.first else {
            certificates.forEach { X509_free($0) }
            throw TLSCredentialsError(path: certificatePath,
                                      description: "\(certificatePath) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        let intermediates = Array(certificates.dropFirst())
        func release() { certificates.forEach { X509_free($0) } }

        var key: OpaquePointer?
        _ = withMemoryBIO(keyBytes) { bio -> Bool in
            key = PEM_read_bio_PrivateKey(bio, nil, refusePEMPassword, nil)
            return key != nil
        }
        guard let key else {
            let detail = OpenSSLLibrary.drainErrors()
            release()
            throw TLSCredentialsError(path: privateKeyPath,
                                      description: "\(privateKeyPath) holds no usable PEM private key"
                                          + " (an encrypted key is not supported)" + (detail.isEmpty ? "" : ": \(detail)"))
        }
        guard X509_check_private_key(leaf, key) == 1 else {
            ERR_clear_error()
            release()
            EVP_PKEY_free(key)
            throw TLSCredentialsError(path: privateKeyPath,
                                      description: "the private key in \(privateKeyPath) does not match the certificate in \(certificatePath)")
        }
        let credentials = TLSCredentials(leaf: leaf, chain: intermediates, privateKey: key,
                                         certificatePath: certificatePath, privateKeyPath: privateKeyPath)
        // The same calls a handshake makes, on a scratch context: what passes here serves.
        guard credentials.checkedInScratchContext() else {
            let detail = OpenSSLLibrary.drainErrors()
            throw TLSCredentialsError(path: certificatePath,
                                      description: "OpenSSL refuses the certificate in \(certificatePath) with the key in "
                                          + "\(privateKeyPath)" + (detail.isEmpty ? "" : ": \(detail)"))
        }
        return credentials
    }

    /// Gives one connection this certificate, chain and key (from the server's cert callback,
    /// before the handshake picks a cipher). False when OpenSSL refuses.
    func install(on ssl: OpaquePointer) -> Bool {
        guard SSL_use_certificate(ssl, leaf) == 1 else { return false }
        _ = SSL_ctrl(ssl, SSL_CTRL_CHAIN, 0, nil)  // SSL_clear_chain_certs
        for certificate in chain {
            guard SSL_ctrl(ssl, SSL_CTRL_CHAIN_CERT, 1, UnsafeMutableRawPointer(certificate)) == 1 else { return false }
        }
        // SSL_use_PrivateKey refuses a key that is not the certificate's.
        return SSL_use_PrivateKey(ssl, privateKey) == 1
    }

    /// "CN=…, not after …, sha256 …", for the log.
    public var summary: String {
        "\(subject), not after \(notAfter)\(isExpired ? " (EXPIRED)" : ""), sha256 \(fingerprintSHA256)"
    }

    private func checkedInScratchContext() -> Bool {
        guard let context = SSL_CTX_new(TLS_server_method()) else { return false }
        defer { SSL_CTX_free(context) }
        guard let ssl = SSL_new(context) else { return false }
        defer { SSL_free(ssl) }
        return install(on: ssl) && SSL_check_private_key(ssl) == 1
    }

    // MARK: OpenSSL helpers

    private static func readFile(_ path: String, what: String) throws(TLSCredentialsError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw TLSCredentialsError(path: path, description: "cannot read the \(what) file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += chunk.prefix(count)
                // A PEM chain is a few KiB; a huge file is a wrong path, not a certificate.
                guard bytes.count <= 1 << 20 else {
                    throw TLSCredentialsError(path: path, description: "the \(what) file \(path) is over 1 MiB")
                }
            } else if count == 0 {
                break
            } else if errno != EINTR {
                throw TLSCredentialsError(path: path, description: "cannot read the \(what) file \(path): \(String(cString: strerror(errno)))")
            }
        }
        return bytes
    }

    /// Runs `body` over a read-only BIO of `bytes`; nil when OpenSSL cannot make one.
    private static func withMemoryBIO<R>(_ bytes: [UInt8], _ body: (OpaquePointer) -> R) -> R? {
        let storage = bytes.isEmpty ? [0] : bytes
        return storage.withUnsafeBytes { raw -> R? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    private static func subjectLine(of certificate: OpaquePointer) -> String {
        guard let name = X509_get_subject_name(certificate) else { return "" }
        // Flags 0: the one-line "C=.., O=.., CN=.." form.
        return bioText { X509_NAME_print_ex($0, name, 0, 0) >= 0 }
    }

    private static func printed(_ time: UnsafePointer<ASN1_TIME>?) -> String {
        guard let time else { return "?" }
        return bioText { ASN1_TIME_print($0, time) == 1 }
    }

    private static func bioText(_ write: (OpaquePointer) -> Bool) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard write(bio) else { return "" }
        var data: UnsafeMutableRawPointer?
        let length = withUnsafeMutablePointer(to: &data) { BIO_ctrl(bio, BIO_CTRL_INFO, 0, $0) }
        guard length > 0, let data else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    private static func fingerprint(of certificate: OpaquePointer) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 else { return "" }
        let hex = Array("0123456789ABCDEF")
        return digest.prefix(Int(length)).map { String([hex[Int($0 >> 4)], hex[Int($0 & 0xF)]]) }.joined(separator: ":")
    }
}

/// PEM password callback that never prompts on a terminal: an encrypted key fails to load.
private func refusePEMPassword(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ writing: Int32,
                               _ user: UnsafeMutableRawPointer?) -> Int32 {
    0
}
