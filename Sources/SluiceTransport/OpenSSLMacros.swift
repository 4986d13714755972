import COpenSSL

/// OpenSSL's function-like macros, spelled as the ctrl calls they expand to.
///
/// Spelled here, not in CShims: they were written when CShims.h still defined _GNU_SOURCE,
/// which declared glibc's fd_set differently from the COpenSSL Clang module ("fds_bits ...
/// not present in definition of fd_set"). CShims.h no longer does, and CShims now holds
/// only the media worker's system calls.
enum OpenSSLMacros {
    /// SSL_OP_BIT(14) and SSL_OP_BIT(12) in ssl.h; Swift cannot import SSL_OP_BIT.
    static let noTicket: UInt64 = 1 << 14
    static let noQueryMTU: UInt64 = 1 << 12

    static func setDTLSOptions(_ context: OpaquePointer) {
        _ = SSL_CTX_set_options(context, noTicket | noQueryMTU)
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_READ_AHEAD, 1, nil)
    }

    /// DTLSv1_get_timeout: microseconds until the retransmission timer fires, nil when unarmed.
    static func dtlsTimeoutMicros(_ ssl: OpaquePointer) -> Int? {
        var timeval: (seconds: Int, micros: Int) = (0, 0)  // struct timeval on LP64
        let armed = withUnsafeMutableBytes(of: &timeval) { SSL_ctrl(ssl, DTLS_CTRL_GET_TIMEOUT, 0, $0.baseAddress) }
        return armed == 1 ? timeval.seconds * 1_000_000 + timeval.micros : nil
    }

    /// DTLSv1_handle_timeout: 1 if a flight was retransmitted, 0 if the timer had not expired,
    /// -1 when OpenSSL gives up.
    static func dtlsHandleTimeout(_ ssl: OpaquePointer) -> Int {
        SSL_ctrl(ssl, DTLS_CTRL_HANDLE_TIMEOUT, 0, nil)
    }

    /// BIO_get_mem_data: the unread bytes of a memory BIO, valid until it is written or reset.
    static func memoryBIOData(_ bio: OpaquePointer) -> UnsafeRawBufferPointer {
        var data: UnsafeMutableRawPointer?
        let length = withUnsafeMutablePointer(to: &data) { BIO_ctrl(bio, BIO_CTRL_INFO, 0, $0) }
        guard length > 0, let data else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: data, count: length)
    }

    static func resetBIO(_ bio: OpaquePointer) {
        _ = BIO_ctrl(bio, BIO_CTRL_RESET, 0, nil)
    }

    /// SSL_set_mtu: the largest datagram DTLS writes (SSL_OP_NO_QUERY_MTU keeps it fixed).
    static func setMTU(_ ssl: OpaquePointer, _ mtu: Int) {
        _ = SSL_ctrl(ssl, SSL_CTRL_SET_MTU, mtu, nil)
    }

    /// BIO_set_mem_eof_return(-1): an empty read BIO must say "retry", not EOF, or the
    /// handshake fails between datagrams.
    static func setRetryOnEmpty(_ bio: OpaquePointer) {
        _ = BIO_ctrl(bio, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
    }
}
