#if canImport(SluiceTransport)
import SluiceTransport

extension PeerConnection {
    /// The connection's transport, for this package's load tester only (`package`: an app
    /// that links the SDK never sees it). Its header-only player mode puts a receiver of its own
    /// in front of the transport on the same UDP path and hands it everything but RTP.
    /// Worker thread; nil before `setRemoteDescription` and after `close`.
    package var packageTransport: WebRTCTransport? { transport }
}
#endif
