import CHMACSHA1
import COpenSSL

/// The ciphers OpenSSL is asked for once per process: fetching an algorithm on every init is
/// what made OpenSSL 3 more than twice as slow as 1.1.1 under libsrtp (cisco/libsrtp #645).
enum OpenSSLSRTPCiphers {
    nonisolated(unsafe) static let aes128GCM: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-128-GCM", nil)
    nonisolated(unsafe) static let aes128CTR: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-128-CTR", nil)
    /// Their implementations, called without EVP in between (`OpenSSLProviderCipher`).
    static let gcm: OpenSSLProviderCipher? = aes128GCM.flatMap(OpenSSLProviderCipher.init(cipher:))
    static let ctr: OpenSSLProviderCipher? = aes128CTR.flatMap(OpenSSLProviderCipher.init(cipher:))
}

/// The transform of one packet kind (RTP or SRTCP) of one session: a provider cipher context
/// keyed once with the session key, the session salt, and for AES-CM the HMAC-SHA1 state.
/// Per packet only the IV is set (the provider's init with no key), which neither allocates
/// nor rebuilds the key schedule.
///
/// Every method is a thin call into OpenSSL over memory the caller checked; none allocates.
final class OpenSSLPacketCipher {
    private let implementation: OpenSSLProviderCipher
    /// The provider's cipher context.
    private let context: UnsafeMutableRawPointer
    /// 12 bytes for GCM, 16 for counter mode.
    private let ivLength: Int
    /// The session salt, zero-padded to 16 bytes (and 16-byte aligned) so the IV is two words.
    let salt: UnsafeMutableRawPointer
    /// sluice_hmac_sha1*, for AES_CM_128_HMAC_SHA1_80 only.
    private let authentication: OpaquePointer?
    /// GCM's tag as a parameter list (the tag, the end); each packet points it at its own tag.
    private let tagParameters: UnsafeMutablePointer<OSSL_PARAM>

    init?(profile: SRTPProfile, key: [UInt8], salt saltBytes: [UInt8], authKey: [UInt8]) {
        let gcm = profile == .aeadAES128GCM
        guard let implementation = gcm ? OpenSSLSRTPCiphers.gcm : OpenSSLSRTPCiphers.ctr, key.count == 16,
              saltBytes.count <= 16, let context = implementation.newContext(implementation.providerContext)
        else { return nil }
        guard implementation.encryptInit(context, key, key.count, nil, 0, nil) == 1 else {
            implementation.freeContext(context)
            return nil
        }
        var auth: OpaquePointer?
        if profile == .aes128CMHMACSHA1_80 {
            auth = sluice_hmac_sha1_create(authKey, authKey.count)
            guard auth != nil else {
                implementation.freeContext(context)
                return nil
            }
        }
        self.implementation = implementation
        self.context = context
        ivLength = gcm ? 12 : 16
        authentication = auth
        salt = .allocate(byteCount: 16, alignment: 16)
        salt.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
        salt.copyMemory(from: saltBytes, byteCount: saltBytes.count)
        tagParameters = .allocate(capacity: 2)
        tagParameters[0] = OSSL_PARAM_construct_octet_string(OpenSSLProviderCipher.tagKey, nil, 16)
        tagParameters[1] = OSSL_PARAM_construct_end()
    }

    deinit {
        implementation.freeContext(context)  // cleanses the key schedule
        sluice_hmac_sha1_destroy(authentication)
        salt.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
        salt.deallocate()
        tagParameters.deallocate()
    }

    /// Starts a packet: the IV (12 bytes for GCM, 16 for counter mode) and the direction.
    @inline(__always)
    func start(iv: UnsafeRawPointer, encrypt: Bool) -> Bool {
        let bytes = iv.assumingMemoryBound(to: UInt8.self)
        return (encrypt ? implementation.encryptInit : implementation.decryptInit)(context, nil, 0, bytes, ivLength, nil) == 1
    }

    /// GCM: authenticated data that is not encrypted; before any `transform`. (The provider
    /// wants an output size of at least the input's even with no output, as EVP passes.)
    @inline(__always)
    func authenticateOnly(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
        var written = 0
        return implementation.update(context, nil, &written, count, bytes.assumingMemoryBound(to: UInt8.self), count) == 1
    }

    /// Encrypts or decrypts `count` bytes in place.
    @inline(__always)
    func transform(_ bytes: UnsafeMutableRawPointer, count: Int) -> Bool {
        guard count > 0 else { return true }
        let pointer = bytes.assumingMemoryBound(to: UInt8.self)
        var written = 0
        return implementation.update(context, pointer, &written, count, pointer, count) == 1 && written == count
    }

    /// Starts a packet and runs it up to its tag: `clearCount` bytes authenticated only (GCM's
    /// RTP header; 0 for counter mode), then `count` bytes at `body` encrypted or decrypted.
    @inline(__always)
    func begin(iv: UnsafeRawPointer, encrypt: Bool, clear: UnsafeRawPointer, clearCount: Int,
               body: UnsafeMutableRawPointer, count: Int) -> Bool {
        start(iv: iv, encrypt: encrypt) && (clearCount == 0 || authenticateOnly(clear, count: clearCount))
            && transform(body, count: count)
    }

    /// GCM, protect: finishes and writes the 16-byte tag.
    @inline(__always)
    func finishSealing(tag: UnsafeMutableRawPointer) -> Bool {
        var written = 0
        guard implementation.final(context, tag.assumingMemoryBound(to: UInt8.self), &written, 0) == 1 else { return false }
        tagParameters[0].data = tag
        tagParameters[0].data_size = 16
        return implementation.getParameters(context, tagParameters) == 1
    }

    /// GCM, unprotect: checks the 16-byte tag (OpenSSL compares in constant time).
    @inline(__always)
    func finishOpening(tag: UnsafeRawPointer) -> Bool {
        tagParameters[0].data = UnsafeMutableRawPointer(mutating: tag)
        tagParameters[0].data_size = 16
        guard implementation.setParameters(context, tagParameters) == 1 else { return false }
        var written = 0
        var sink: UInt8 = 0
        return implementation.final(context, &sink, &written, 0) == 1
    }

    /// AES-CM: HMAC-SHA1 of `count` bytes and then `suffix` (the ROC, for RTP) into `digest`
    /// (20 bytes).
    @inline(__always)
    func mac(_ bytes: UnsafeRawPointer, count: Int, suffix: UnsafeRawPointer, suffixCount: Int,
             digest: UnsafeMutableRawPointer) {
        sluice_hmac_sha1_compute(authentication, bytes, count, suffix, suffixCount,
                                 digest.assumingMemoryBound(to: UInt8.self))
    }
}
