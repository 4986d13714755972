import COpenSSL

/// The HMAC-SHA1 key of STUN short-term credentials (RFC 8489 section 9.1.1: the key is the
/// password itself). It keeps one OpenSSL MAC context, keyed once, so that checking a binding
/// request does not fetch the algorithm or set up the key again.
///
/// Not thread-safe: one key object belongs to one ICE agent on one worker.
public final class STUNIntegrityKey {
    public static let hmacSize = 20

    private let context: OpaquePointer

    public convenience init(password: String) {
        self.init(key: Array(password.utf8))
    }

    public init(key: [UInt8]) {
        OpenSSLLibrary.initialize()
        guard let mac = OpenSSLLibrary.hmac, let ctx = EVP_MAC_CTX_new(mac) else {
            fatalError("OpenSSL has no HMAC implementation")
        }
        context = ctx
        // A zero-length key still needs a non-null pointer: null means "keep the previous key".
        var padded = key
        if padded.isEmpty { padded = [0] }
        let ok: Int32 = "digest".withCString { name in
            var digest = Array("SHA1".utf8CString)
            return digest.withUnsafeMutableBufferPointer { digestBuffer in
                var params = [OSSL_PARAM_construct_utf8_string(name, digestBuffer.baseAddress, 0),
                              OSSL_PARAM_construct_end()]
                return padded.withUnsafeBufferPointer { k in
                    EVP_MAC_init(ctx, k.baseAddress, key.count, &params)
                }
            }
        }
        guard ok == 1 else { fatalError("EVP_MAC_init failed for HMAC-SHA1") }
    }

    deinit {
        EVP_MAC_CTX_free(context)
    }

    private func update(_ part: UnsafeRawBufferPointer) -> Bool {
        guard part.count > 0 else { return true }
        guard let base = part.baseAddress else { return false }
        return EVP_MAC_update(context, base.assumingMemoryBound(to: UInt8.self), part.count) == 1
    }

    /// HMAC-SHA1 over up to three contiguous parts, written to `output` (20 bytes).
    /// Three parts let a caller substitute the STUN length field without copying the message.
    @discardableResult
    public func authenticate(_ part1: UnsafeRawBufferPointer,
                             _ part2: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
                             _ part3: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
                             into output: UnsafeMutableRawPointer) -> Bool {
        guard EVP_MAC_init(context, nil, 0, nil) == 1,
              update(part1), update(part2), update(part3) else { return false }
        var written = 0
        return EVP_MAC_final(context, output.assumingMemoryBound(to: UInt8.self), &written,
                             STUNIntegrityKey.hmacSize) == 1 && written == STUNIntegrityKey.hmacSize
    }
}

/// CRC-32 (IEEE 802.3, reflected, the one zlib computes), as STUN FINGERPRINT uses it.
public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var c = UInt32(index)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// Continues a running CRC; start with 0.
    public static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = ~crc
        table.withUnsafeBufferPointer { t in
            for byte in bytes { c = t[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        }
        return ~c
    }

    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        update(0, bytes)
    }
}
