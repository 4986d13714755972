import SluiceTransport
import SluiceVocabulary

/// What a worker needs to build one publish or play endpoint: the outcome of the SDP
/// negotiation and the ICE/DTLS credentials, as plain values that cross to the worker.
public struct EndpointParameters: Sendable {
    public var handle: StreamHandle
    public var stream: String
    public var role: StreamRole
    public var audio: TrackParameters?
    public var video: TrackParameters?
    /// ICE credentials, the peer's fingerprint and the DTLS role, as the transport takes them.
    public var transport: TransportParameters

    public init(handle: StreamHandle, stream: String, role: StreamRole, audio: TrackParameters?,
                video: TrackParameters?, transport: TransportParameters) {
        self.handle = handle
        self.stream = stream
        self.role = role
        self.audio = audio
        self.video = video
        self.transport = transport
    }
}
