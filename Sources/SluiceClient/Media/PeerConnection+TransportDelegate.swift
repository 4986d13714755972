#if canImport(SluiceTransport)
import SluiceRTP
import SluiceTransport
import SluiceWire
import Synchronization

/// What the transport and the worker tell a connection (worker thread): connected, failed,
/// RTP and RTCP received, the tick that drives its delegate.
extension PeerConnection: WebRTCTransportDelegate, WorkerTickable {
    public func transportDidConnect(_ transport: WebRTCTransport) {
        guard stateValue.compareExchange(expected: State.connecting.rawValue, desired: State.connected.rawValue,
                                         ordering: .acquiringAndReleasing).exchanged else { return }
        resumeWaiters(with: .success(()))
        delegate?.peerConnectionDidConnect(self)
    }

    public func transport(_ transport: WebRTCTransport, didFail failure: TransportFailure) {
        let info = Self.info(failure)
        let current = stateValue.load(ordering: .acquiring)
        guard current != State.closed.rawValue else { return }
        stateValue.store(State.failed.rawValue, ordering: .releasing)
        resumeWaiters(with: .failure(PeerConnectionError.failed(info)), failure: info)
        delegate?.peerConnection(self, didFail: info)
    }

    public func transport(_ transport: WebRTCTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer, now: UInt64) {
        guard let rtp = RTPPacket(parsing: packet) else { return }
        packetsReceived += 1
        let type = Int(rtp.payloadType)
        let kind: TrackKind? = type == videoPayloadType ? .video
            : type == audioPayloadType || type == audioREDPayloadType ? .audio : nil
        delegate?.peerConnection(self, didReceiveRTP: rtp, kind: kind, now: now)
    }

    public func transport(_ transport: WebRTCTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer, now: UInt64) {
        if configuration.role == .publish {
            for layer in videoStreams.indices
            where RTCPKeyFrameRequest.contains(UnsafeRawBufferPointer(packet), mediaSSRC: videoStreams[layer].ssrc) {
                keyFrameRequestsReceived += 1
                delegate?.peerConnection(self, didRequestKeyFrameForLayer: layer, now: now)
            }
        }
        delegate?.peerConnection(self, didReceiveRTCP: packet, now: now)
    }

    public func tick(now: UInt64) {
        guard state == .connected else { return }
        delegate?.peerConnection(self, tick: now)
    }
}
#endif
