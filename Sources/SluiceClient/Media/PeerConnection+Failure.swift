#if canImport(SluiceTransport)
import SluiceTransport
import SluiceVocabulary

extension PeerConnection {
    /// What a local transport failure is called in `PeerConnectionError.failed` and
    /// `peerConnection(_:didFail:)`: the words the server uses for the same cause in a FAILED
    /// `streamStatus` (docs/protocol.md section 1), from SluiceVocabulary's `StatusInfo`, so an
    /// app reads one vocabulary.
    static func info(_ failure: TransportFailure) -> String {
        switch failure {
        case .iceTimeout: return StatusInfo.iceTimeout
        case .dtlsError: return StatusInfo.dtlsError
        case .dtlsFingerprint: return StatusInfo.dtlsFingerprint
        }
    }
}
#endif
