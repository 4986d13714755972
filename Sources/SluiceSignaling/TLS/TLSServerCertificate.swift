import COpenSSL
import Foundation

/// The certificate the HTTPS listener serves, replaceable while the server runs (SIGHUP).
///
/// How the certificate reaches a handshake, and why this way: libwebsockets makes the vhost's
/// SSL_CTX with no certificate of its own (LWS_SERVER_OPTION_CREATE_VHOST_SSL_CTX and no
/// `ssl_cert_filepath`) and hands it over in LWS_CALLBACK_OPENSSL_LOAD_EXTRA_SERVER_VERIFY_CERTS.
/// There an OpenSSL certificate callback (SSL_CTX_set_cert_cb) is set, which gives each new
/// connection the current credentials, right after its ClientHello. A reload only swaps
/// `current`; connections already up keep the SSL they have, so no session drops.
///
/// The alternatives were worse: lws_tls_cert_updated reports no failure (it returns 0 always)
/// and, when the key is bad, leaves the vhost's SSL_CTX half replaced; loading the new files
/// into that SSL_CTX ourselves keeps the old certificate beside the new one whenever the key
/// type changes (RSA to ECDSA, as certbot 2 did by default), since OpenSSL stores one
/// certificate per key type and has no call that removes one.
///
/// Threads: `current` is read by the callback, which OpenSSL runs inside SSL_accept on the
/// service thread; it is written only on the service thread (`adoptPending`, under the lock so
/// that `latest` may read it from elsewhere). `offer` and `latest` come from any thread.
// @unchecked: `current` is written on the service thread under `lock`; `pending` is read and written under `lock` only.
final class TLSServerCertificate: @unchecked Sendable {
    private(set) var current: TLSCredentials
    private let lock = NSLock()
    private var pending: TLSCredentials?
    /// Whether lws handed over its SSL_CTX (else no handshake could get a certificate).
    private(set) var isAttached = false
    /// Connections whose handshake got no certificate (should stay 0).
    private(set) var installFailures = 0

    init(_ credentials: TLSCredentials) {
        current = credentials
    }

    /// Service thread, from the lws callback that hands over the vhost's SSL_CTX.
    func attach(to context: OpaquePointer) {
        SSL_CTX_set_cert_cb(context, tlsServerCertificateCallback, Unmanaged.passUnretained(self).toOpaque())
        isAttached = true
        // TLS 1.0 and 1.1 are deprecated (RFC 8996); browsers dropped them in 2020.
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
    }

    /// Any thread: these credentials become current at the service thread's next wake.
    func offer(_ credentials: TLSCredentials) {
        lock.lock()
        pending = credentials
        lock.unlock()
    }

    /// Any thread: the credentials offered last, else the current ones.
    var latest: TLSCredentials {
        lock.lock()
        defer { lock.unlock() }
        return pending ?? current
    }

    /// Service thread: swaps in offered credentials; returns them when there were any.
    func adoptPending() -> TLSCredentials? {
        lock.lock()
        defer { lock.unlock() }
        guard let next = pending else { return nil }
        pending = nil
        current = next
        return next
    }

    fileprivate func install(on ssl: OpaquePointer) -> Bool {
        if current.install(on: ssl) { return true }
        installFailures += 1
        return false
    }
}

/// SSL_CTX_set_cert_cb's callback: 1 lets the handshake go on, 0 fails it.
private func tlsServerCertificateCallback(_ ssl: OpaquePointer?, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let ssl, let argument else { return 0 }
    return Unmanaged<TLSServerCertificate>.fromOpaque(argument).takeUnretainedValue().install(on: ssl) ? 1 : 0
}
