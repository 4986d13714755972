import COpenSSL

/// The process-wide OpenSSL setup, done once. Every OpenSSL-backed type calls `initialize()`
/// first; the lazy static makes the first call thread-safe.
public enum OpenSSLLibrary {
    private static let initialized: Bool = {
        OPENSSL_init_ssl(UInt64(OPENSSL_INIT_LOAD_SSL_STRINGS | OPENSSL_INIT_LOAD_CRYPTO_STRINGS), nil) == 1
    }()

    /// The HMAC algorithm, fetched once: fetching per use walks the provider tables.
    static let hmac: OpaquePointer? = {
        initialize()
        return EVP_MAC_fetch(nil, "HMAC", nil)
    }()

    public static func initialize() {
        precondition(initialized, "OpenSSL failed to initialize")
    }

    /// Pops the thread's OpenSSL error queue into one line, for failure reports.
    public static func drainErrors() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(cString: buffer))
        }
        return messages.joined(separator: "; ")
    }

    /// Discards stale errors so the next failure report shows only its own cause.
    static func clearErrors() {
        ERR_clear_error()
    }
}
