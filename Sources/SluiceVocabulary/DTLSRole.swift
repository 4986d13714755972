/// Our side of a DTLS handshake (RFC 5763): in SDP `a=setup`, in the transport, in OpenSSL.
public enum DTLSRole: String, Sendable, Hashable {
    /// We wait for ClientHello (a server answers a=setup:passive).
    case server
    /// We send ClientHello (a server answers a=setup:active when the offer said passive;
    /// the client SDK always).
    case client
}
