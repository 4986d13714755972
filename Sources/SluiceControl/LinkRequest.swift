/// An edge node's request to a stream's origin node for a relay link (docs/cluster.md, "Relay
/// links"): the edge's ICE credentials and DTLS fingerprint. It travels over the nodes'
/// authenticated control channel (`cluster.secret`), so the DTLS handshake that follows is
/// bound to it, and the link's SRTP keys come from that handshake as for any transport.
public struct LinkRequest: Sendable, Equatable {
    public var stream: String
    /// The edge's `cluster.nodeId`.
    public var edgeNode: String
    public var iceUfrag: String
    public var icePassword: String
    /// "sha-256".
    public var fingerprintAlgorithm: String
    /// Colon-separated upper-case hex, as in SDP.
    public var fingerprint: String

    public init(stream: String, edgeNode: String, iceUfrag: String, icePassword: String,
                fingerprintAlgorithm: String, fingerprint: String) {
        self.stream = stream
        self.edgeNode = edgeNode
        self.iceUfrag = iceUfrag
        self.icePassword = icePassword
        self.fingerprintAlgorithm = fingerprintAlgorithm
        self.fingerprint = fingerprint
    }
}
