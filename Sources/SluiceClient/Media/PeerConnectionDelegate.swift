#if canImport(SluiceTransport)
import SluiceRTP

/// What a `PeerConnection` tells its owner. Every call comes on the connection's worker
/// thread; packet views are valid only during the call.
public protocol PeerConnectionDelegate: AnyObject {
    func peerConnectionDidConnect(_ connection: PeerConnection)
    /// `info` is one of the "Failed by ..." strings of docs/protocol.md.
    func peerConnection(_ connection: PeerConnection, didFail info: String)
    /// A decrypted RTP packet; `kind` from its payload type, nil when it matches neither.
    func peerConnection(_ connection: PeerConnection, didReceiveRTP packet: RTPPacket, kind: TrackKind?, now: UInt64)
    /// A decrypted (compound) RTCP packet.
    func peerConnection(_ connection: PeerConnection, didReceiveRTCP packet: UnsafeMutableRawBufferPointer, now: UInt64)
    /// A publisher got a PLI or FIR for its video SSRC.
    func peerConnectionDidRequestKeyFrame(_ connection: PeerConnection, now: UInt64)
    /// A publisher got a PLI or FIR for the SSRC of simulcast layer `layer` (0 without
    /// simulcast). By default it calls `peerConnectionDidRequestKeyFrame(_:now:)`.
    func peerConnection(_ connection: PeerConnection, didRequestKeyFrameForLayer layer: Int, now: UInt64)
    /// Every worker tick (10 ms) while connected: the place to send what is due.
    func peerConnection(_ connection: PeerConnection, tick now: UInt64)
}

extension PeerConnectionDelegate {
    public func peerConnectionDidConnect(_ connection: PeerConnection) {}
    public func peerConnection(_ connection: PeerConnection, didFail info: String) {}
    public func peerConnection(_ connection: PeerConnection, didReceiveRTP packet: RTPPacket, kind: TrackKind?, now: UInt64) {}
    public func peerConnection(_ connection: PeerConnection, didReceiveRTCP packet: UnsafeMutableRawBufferPointer, now: UInt64) {}
    public func peerConnectionDidRequestKeyFrame(_ connection: PeerConnection, now: UInt64) {}
    public func peerConnection(_ connection: PeerConnection, didRequestKeyFrameForLayer layer: Int, now: UInt64) {
        peerConnectionDidRequestKeyFrame(connection, now: now)
    }
    public func peerConnection(_ connection: PeerConnection, tick now: UInt64) {}
}
#endif
