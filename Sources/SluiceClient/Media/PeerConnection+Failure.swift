#if canImport(SluiceTransport)
import SluiceTransport

extension PeerConnection {
    /// What a local transport failure is called in `PeerConnectionError.failed` and
    /// `peerConnection(_:didFail:)`: the words the server uses for the same cause in a FAILED
    /// `streamStatus` (docs/protocol.md section 1), so an app reads one vocabulary. The SDK
    /// does not link the server's control plane (SluiceControl), which spells them there.
    static func info(_ failure: TransportFailure) -> String {
        switch failure {
        case .iceTimeout: return "Failed by ICE timeout"
        case .dtlsError: return "Failed by DTLS error"
        case .dtlsFingerprint: return "Failed by DTLS fingerprint error"
        }
    }
}
#endif
