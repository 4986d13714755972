import COpenSSL

/// An SSL_CTX for DTLS 1.2 as WebRTC uses it: one local certificate, DTLS-SRTP profiles
/// (GCM preferred unless told otherwise), a peer certificate required but accepted by any chain (the session checks
/// its fingerprint against SDP after the handshake), no tickets, and a fixed MTU.
/// One context serves every session of a worker (or of the process: OpenSSL locks it internally).
public final class DTLSContext {
    /// SSL_CTX*
    let context: OpaquePointer
    public let certificate: DTLSCertificate
    public let srtpProfiles: [SRTPProfile]
    /// What runs SRTP once the handshake has made the keys (`SRTPKeyMaterial.backend`).
    public let srtpBackend: SRTPBackend

    static let cipherList = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
        "ECDHE-ECDSA-AES128-SHA", "ECDHE-RSA-AES128-SHA",
        "ECDHE-ECDSA-AES256-SHA", "ECDHE-RSA-AES256-SHA",
    ].joined(separator: ":")

    /// The largest record this side sends: above the DTLS MTU, far below OpenSSL's 16 KB.
    static let maxSendFragment = 2048

    /// - Parameter srtpProfiles: in order of preference (a server picks the first the client
    ///   offers too); one profile forces it, or fails the handshake with a peer without it.
    public init(certificate: DTLSCertificate, srtpProfiles: [SRTPProfile] = SRTPConfiguration.defaultProfiles,
                srtpBackend: SRTPBackend = .openSSL) throws {
        OpenSSLLibrary.initialize()
        OpenSSLLibrary.clearErrors()
        guard let ctx = SSL_CTX_new(DTLS_method()) else { throw DTLSSetupError("SSL_CTX_new") }
        context = ctx
        self.certificate = certificate
        self.srtpProfiles = srtpProfiles
        self.srtpBackend = srtpBackend

        let version = Int(DTLS1_2_VERSION)
        guard SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, version, nil) == 1,
              SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MAX_PROTO_VERSION, version, nil) == 1
        else { throw DTLSSetupError("DTLS 1.2 version bounds") }
        guard SSL_CTX_use_certificate(ctx, certificate.certificate) == 1,
              SSL_CTX_use_PrivateKey(ctx, certificate.privateKey) == 1,
              SSL_CTX_check_private_key(ctx) == 1
        else { throw DTLSSetupError("certificate and key") }
        guard SSL_CTX_set_cipher_list(ctx, DTLSContext.cipherList) == 1 else { throw DTLSSetupError("cipher list") }
        let groups = "X25519:P-256"
        let groupsSet = groups.withCString {
            SSL_CTX_ctrl(ctx, SSL_CTRL_SET_GROUPS_LIST, 0, UnsafeMutableRawPointer(mutating: $0))
        }
        guard groupsSet == 1 else { throw DTLSSetupError("groups") }
        // SSL_CTX_set_tlsext_use_srtp returns 0 on success.
        let profileList = srtpProfiles.map(\.openSSLName).joined(separator: ":")
        guard !srtpProfiles.isEmpty, SSL_CTX_set_tlsext_use_srtp(ctx, profileList) == 0
        else { throw DTLSSetupError("use_srtp") }

        // Any chain is fine here: the fingerprint from signaling is what authenticates the peer.
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT) { _, _ in 1 }
        OpenSSLMacros.setDTLSOptions(ctx)
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        // OpenSSL sizes a session's write buffer by the largest record it may send (16 KB by
        // default) and keeps it for the session's life (SSL_MODE_RELEASE_BUFFERS frees nothing
        // for DTLS: measured). Nothing here sends a record over the DTLS MTU (1200: handshake
        // fragments, SCTP packets), so 2 KB records cut about 14 KB per player.
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MAX_SEND_FRAGMENT, DTLSContext.maxSendFragment, nil)
    }

    deinit {
        SSL_CTX_free(context)
    }
}
