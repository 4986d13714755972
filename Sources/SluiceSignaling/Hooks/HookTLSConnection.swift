import COpenSSL
import SluiceTransport
#if canImport(Glibc)
import Glibc
#endif

/// TLS over a hook's `HookSocket`: OpenSSL works on memory BIOs and this type moves the bytes,
/// so every wait keeps the request's deadline and no write can raise SIGPIPE (OpenSSL's socket
/// BIO writes with write(2), which does). SNI and the host name check use the URL's host; the
/// chain is verified against the context's CA store.
final class HookTLSConnection {
    private let socket: HookSocket
    /// SSL*, owning both BIOs.
    private let ssl: OpaquePointer
    /// Bytes from the network, for OpenSSL to read.
    private let incoming: OpaquePointer
    /// Bytes OpenSSL wrote, for the network.
    private let outgoing: OpaquePointer
    private var scratch = [UInt8](repeating: 0, count: 16_384)

    init?(socket: HookSocket, context: HookTLSContext, host: String) {
        guard let ssl = SSL_new(context.context) else { return nil }
        guard let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            return nil
        }
        // An empty read BIO means "wait for more", not end of stream.
        _ = BIO_ctrl(incoming, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        SSL_set_bio(ssl, incoming, outgoing)
        self.socket = socket
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        if HookTLSConnection.isAddressLiteral(host) {
            // No SNI for an address (RFC 6066 section 3); the certificate must name the IP.
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else { return nil }
        } else {
            // SSL_set_tlsext_host_name (a macro); OpenSSL copies the name.
            let named = host.withCString {
                SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0))
            }
            guard SSL_set1_host(ssl, host) == 1, named == 1 else { return nil }
        }
        SSL_set_connect_state(ssl)
    }

    deinit { SSL_free(ssl) }

    func handshake() -> HookSocket.Step {
        let result = drive { SSL_do_handshake(ssl) }
        if case .failed = result {
            let verify = SSL_get_verify_result(ssl)
            if verify != Int(X509_V_OK) {
                return .failed("TLS: the server's certificate is refused: \(String(cString: X509_verify_cert_error_string(verify)))")
            }
        }
        if case .failed(let why) = result { return .failed("TLS handshake failed: \(why)") }
        return result
    }

    func sendAll(_ bytes: [UInt8]) -> HookSocket.Step {
        guard !bytes.isEmpty else { return .done }
        return bytes.withUnsafeBytes { raw in
            drive { SSL_write(ssl, raw.baseAddress, Int32(raw.count)) }
        }
    }

    /// Decrypted bytes into `buffer`, as many as are ready.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> HookSocket.Received {
        var count: Int32 = 0
        let step = drive {
            count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
            return count
        }
        switch step {
        case .done: return .bytes(Int(count))
        case .timedOut: return .timedOut
        case .failed(let why): return why == "closed" ? .closed : .failed(why)
        }
    }

    /// Runs `operation` until it succeeds, moving bytes between the BIOs and the socket
    /// whenever OpenSSL wants to read; gives up at the socket's deadline.
    private func drive(_ operation: () -> Int32) -> HookSocket.Step {
        while true {
            ERR_clear_error()
            let result = operation()
            if case .failed(let why) = flush() { return .failed(why) }
            if result > 0 { return .done }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ:
                switch fill() {
                case .done: continue
                case .timedOut: return .timedOut
                case .failed(let why): return .failed(why)
                }
            case SSL_ERROR_WANT_WRITE:
                continue  // a memory BIO always takes the bytes; flush() sent them
            case SSL_ERROR_ZERO_RETURN:
                return .failed("closed")
            default:
                let detail = OpenSSLLibrary.drainErrors()
                return .failed(detail.isEmpty ? "the connection closed" : detail)
            }
        }
    }

    /// Sends what OpenSSL wrote.
    private func flush() -> HookSocket.Step {
        while true {
            var data: UnsafeMutableRawPointer?
            let pending = withUnsafeMutablePointer(to: &data) { BIO_ctrl(outgoing, BIO_CTRL_INFO, 0, $0) }
            guard pending > 0, let data else { return .done }
            let step = socket.sendAll(UnsafeRawBufferPointer(start: data, count: pending))
            _ = BIO_ctrl(outgoing, BIO_CTRL_RESET, 0, nil)
            if step != .done { return step }
        }
    }

    /// Reads what the network has into the read BIO; at end of stream OpenSSL is told so.
    private func fill() -> HookSocket.Step {
        let received = scratch.withUnsafeMutableBytes { socket.receive(into: $0) }
        switch received {
        case .bytes(let count):
            let written = scratch.withUnsafeBytes { BIO_write(incoming, $0.baseAddress, Int32(count)) }
            return written == Int32(count) ? .done : .failed("OpenSSL refused the bytes read")
        case .closed:
            _ = BIO_ctrl(incoming, BIO_C_SET_BUF_MEM_EOF_RETURN, 0, nil)
            return .done
        case .timedOut:
            return .timedOut
        case .failed(let why):
            return .failed(why)
        }
    }

    static func isAddressLiteral(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
    }

}
