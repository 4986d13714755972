import CShims

/// OpenSSL macros reached through CShims. Kept in a file that imports CShims but not COpenSSL:
/// the two modules see glibc's fd_set differently (CShims defines _GNU_SOURCE), and Clang
/// rejects a file that imports both.
enum OpenSSLMacros {
    static func setDTLSOptions(_ context: OpaquePointer) {
        _ = sluice_SSL_CTX_set_options(context, sluice_SSL_OP_NO_TICKET() | sluice_SSL_OP_NO_QUERY_MTU())
        _ = sluice_SSL_CTX_set_read_ahead(context, 1)
    }
}

extension OpenSSLMacros {
    /// Microseconds until the DTLS retransmission timer fires, or nil when none is armed.
    static func dtlsTimeoutMicros(_ ssl: OpaquePointer) -> Int? {
        let micros = sluice_DTLSv1_get_timeout_us(ssl)
        return micros < 0 ? nil : micros
    }

    /// 1 if a flight was retransmitted, 0 if the timer had not expired, -1 on too many.
    static func dtlsHandleTimeout(_ ssl: OpaquePointer) -> Int {
        sluice_DTLSv1_handle_timeout(ssl)
    }

    static func memoryBIOData(_ bio: OpaquePointer) -> UnsafeRawBufferPointer {
        var data: UnsafeMutablePointer<CChar>?
        let length = sluice_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: data, count: length)
    }

    static func setMTU(_ ssl: OpaquePointer, _ mtu: Int) {
        _ = sluice_SSL_set_mtu(ssl, mtu)
    }

    /// An empty read BIO must say "retry", not EOF, or the handshake fails between datagrams.
    static func setRetryOnEmpty(_ bio: OpaquePointer) {
        _ = sluice_BIO_set_mem_eof_return(bio, -1)
    }
}
