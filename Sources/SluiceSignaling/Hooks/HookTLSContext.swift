import COpenSSL
import Foundation

/// The client SSL_CTX of `https://` hooks, one per trust setting: the system's CA store, or
/// the PEM CA certificates of an app's `hooks.caFile`. Made on first use and kept for the
/// process; OpenSSL lets many threads make connections from one SSL_CTX at once.
// @unchecked: an immutable SSL_CTX, which OpenSSL lets many threads use at once; the cache is under `lock`.
final class HookTLSContext: @unchecked Sendable {
    /// SSL_CTX*
    let context: OpaquePointer

    private init(context: OpaquePointer) {
        self.context = context
    }

    deinit { SSL_CTX_free(context) }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var cache: [String: HookTLSContext] = [:]

    /// The context trusting `caFile` (nil: the system's store), or why it cannot be made.
    static func shared(caFile: String?) -> Result<HookTLSContext, HookTLSContextError> {
        let key = caFile ?? ""
        lock.lock()
        defer { lock.unlock() }
        if let known = cache[key] { return .success(known) }
        let made = make(caFile: caFile)
        if case .success(let context) = made { cache[key] = context }
        return made
    }

    /// Nil when `caFile` holds CA certificates OpenSSL can load; else what is wrong, for the
    /// config check.
    static func problem(withCAFile caFile: String) -> String? {
        switch make(caFile: caFile) {
        case .success: return nil
        case .failure(let error): return error.description
        }
    }

    private static func make(caFile: String?) -> Result<HookTLSContext, HookTLSContextError> {
        ERR_clear_error()
        guard let raw = SSL_CTX_new(TLS_client_method()) else {
            return .failure(HookTLSContextError(description: "OpenSSL cannot make a TLS client context"))
        }
        let made = HookTLSContext(context: raw)
        // Certificates are checked by OpenSSL's chain verification; the host name is set per
        // connection (SSL_set1_host or the IP address).
        SSL_CTX_set_verify(raw, SSL_VERIFY_PEER, nil)
        _ = SSL_CTX_ctrl(raw, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        if let caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                return .failure(HookTLSContextError(description: "cannot read the CA file \(caFile)"))
            }
            guard SSL_CTX_load_verify_locations(raw, caFile, nil) == 1 else {
                ERR_clear_error()
                return .failure(HookTLSContextError(description: "\(caFile) holds no PEM CA certificate"))
            }
        } else if SSL_CTX_set_default_verify_paths(raw) != 1 {
            ERR_clear_error()
            return .failure(HookTLSContextError(description: "OpenSSL cannot find the system's CA certificates"))
        }
        return .success(made)
    }
}

struct HookTLSContextError: Error, CustomStringConvertible {
    let description: String
}
