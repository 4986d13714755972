/// Why a transport failed, as a value: the control plane turns it into the words of
/// docs/protocol.md (`StatusInfo` in SluiceControl), the client SDK into its own.
public enum TransportFailure: Sendable, Equatable, CaseIterable {
    /// ICE consent expired (no valid check within the timeout), or the client role's checks
    /// went unanswered or its only path closed.
    case iceTimeout
    /// The DTLS handshake failed or timed out, the peer closed the association, or the keys
    /// could not make SRTP sessions.
    case dtlsError
    /// The peer's certificate does not match the fingerprint its SDP announced.
    case dtlsFingerprint
}
