import COpenSSL
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A one-shot HTTPS backend on a `SilentListener`: accepts one connection, does the TLS
/// handshake with `certificate`/`key` (PEM paths), reads the request up to `bodyEnd` and
/// answers `reply`. Blocking sockets on its own thread; what it read is in `received`.
final class TestTLSBackend: @unchecked Sendable {
    let received = LockedLines()
    /// Why the handshake failed on the server side, when it did (e.g. the client refused us).
    let failures = LockedLines()
    private let context: OpaquePointer

    init(certificate: String, key: String) throws {
        let context = try #require(SSL_CTX_new(TLS_server_method()))
        self.context = context
        try #require(SSL_CTX_use_certificate_chain_file(context, certificate) == 1)
        try #require(SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1)
    }

    deinit { SSL_CTX_free(context) }

    func serveOnce(on listener: SilentListener, bodyEnd: String, reply: String) -> Thread {
        let fd = listener.fd
        let received = self.received
        let failures = self.failures
        let thread = Thread { [self] in
            signal(SIGPIPE, SIG_IGN)  // a client that gives up mid-reply must not end the test process
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard let ssl = SSL_new(self.context) else { return }
            defer { SSL_free(ssl) }
            SSL_set_fd(ssl, connection)
            guard SSL_accept(ssl) == 1 else {
                failures.append("handshake failed: \(ERR_get_error())")
                return
            }
            var data = [UInt8]()
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !String(decoding: data, as: UTF8.self).hasSuffix(bodyEnd) {
                let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
                if count <= 0 { break }
                data += chunk.prefix(Int(count))
            }
            received.append(String(decoding: data, as: UTF8.self))
            let bytes = Array(reply.utf8)
            _ = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            _ = SSL_shutdown(ssl)
        }
        thread.start()
        return thread
    }
}
