import CHMACSHA1
import COpenSSL

/// The ciphers OpenSSL is asked for once per process: fetching an algorithm on every init is
/// what made OpenSSL 3 more than twice as slow as 1.1.1 under libsrtp (cisco/libsrtp #645).
enum OpenSSLSRTPCiphers {
    nonisolated(unsafe) static let aes128GCM: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-128-GCM", nil)
    nonisolated(unsafe) static let aes128CTR: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-128-CTR", nil)
}

/// The transform of one packet kind (RTP or SRTCP) of one session: an EVP cipher context
/// keyed once with the session key, the session salt, and for AES-CM the HMAC-SHA1 state.
/// Per packet only the IV is set (`EVP_CipherInit_ex` with no cipher and no key), which
/// neither allocates nor rebuilds the key schedule.
///
/// Every method is a thin call into OpenSSL over memory the caller checked; none allocates.
final class OpenSSLPacketCipher {
    /// EVP_CIPHER_CTX*
    private let context: OpaquePointer
    /// The session salt, zero-padded to 16 bytes (and 16-byte aligned) so the IV is two words.
    let salt: UnsafeMutableRawPointer
    /// sluice_hmac_sha1*, for AES_CM_128_HMAC_SHA1_80 only.
    private let authentication: OpaquePointer?

    init?(profile: SRTPProfile, key: [UInt8], salt saltBytes: [UInt8], authKey: [UInt8]) {
        let cipher = profile == .aeadAES128GCM ? OpenSSLSRTPCiphers.aes128GCM : OpenSSLSRTPCiphers.aes128CTR
        guard let cipher, key.count == 16, saltBytes.count <= 16, let context = EVP_CIPHER_CTX_new() else { return nil }
        guard EVP_CipherInit_ex(context, cipher, nil, key, nil, 1) == 1 else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        var auth: OpaquePointer?
        if profile == .aes128CMHMACSHA1_80 {
            auth = sluice_hmac_sha1_create(authKey, authKey.count)
            guard auth != nil else {
                EVP_CIPHER_CTX_free(context)
                return nil
            }
        }
        self.context = context
        authentication = auth
        salt = .allocate(byteCount: 16, alignment: 16)
        salt.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
        salt.copyMemory(from: saltBytes, byteCount: saltBytes.count)
    }

    deinit {
        EVP_CIPHER_CTX_free(context)  // cleanses the key schedule
        sluice_hmac_sha1_destroy(authentication)
        salt.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
        salt.deallocate()
    }

    /// Starts a packet: the IV (12 bytes for GCM, 16 for counter mode) and the direction.
    @inline(__always)
    func start(iv: UnsafeRawPointer, encrypt: Bool) -> Bool {
        EVP_CipherInit_ex(context, nil, nil, nil, iv.assumingMemoryBound(to: UInt8.self), encrypt ? 1 : 0) == 1
    }

    /// GCM: authenticated data that is not encrypted; before any `transform`.
    @inline(__always)
    func authenticateOnly(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
        var written: Int32 = 0
        return EVP_CipherUpdate(context, nil, &written, bytes.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1
    }

    /// Encrypts or decrypts `count` bytes in place.
    @inline(__always)
    func transform(_ bytes: UnsafeMutableRawPointer, count: Int) -> Bool {
        guard count > 0 else { return true }
        let pointer = bytes.assumingMemoryBound(to: UInt8.self)
        var written: Int32 = 0
        return EVP_CipherUpdate(context, pointer, &written, pointer, Int32(count)) == 1 && Int(written) == count
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
        var written: Int32 = 0
        guard EVP_CipherFinal_ex(context, tag.assumingMemoryBound(to: UInt8.self), &written) == 1 else { return false }
        return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, 16, tag) == 1
    }

    /// GCM, unprotect: checks the 16-byte tag (OpenSSL compares in constant time).
    @inline(__always)
    func finishOpening(tag: UnsafeRawPointer) -> Bool {
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, 16, UnsafeMutableRawPointer(mutating: tag)) == 1
        else { return false }
        var written: Int32 = 0
        var sink: UInt8 = 0
        return EVP_CipherFinal_ex(context, &sink, &written) == 1
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
