import SluiceRTP
import SluiceVocabulary

/// What a producer hands to its consumers for one incoming packet: a view of the
/// decrypted packet and what the producer learned about it. Lives for the duration of the
/// fan-out only; nothing is copied until a consumer writes its outgoing buffer.
struct ForwardedPacket: ~Copyable {
    let packet: RTPPacket
    let kind: MediaKind
    /// The producer's simulcast layer (0 without simulcast, and for audio).
    let layer: Int
    let isKeyFrame: Bool
    /// VP8 temporal layer index (TID), when the descriptor has one.
    let temporalLayer: UInt8?
    /// The VP8 payload descriptor, parsed once by the producer for every consumer.
    let vp8: VP8PayloadDescriptor?
    let clockRate: UInt32
    /// Audio level of the source, when it sent one (RFC 6464), as its raw byte.
    let audioLevel: UInt8?
    let now: UInt64
    /// The buffer of this worker's pool that holds the packet for NACKs (the producer's
    /// retransmission buffer), which other workers are handed by reference; -1 when it is not
    /// stored (audio, or a relayed packet).
    var stored: Int32 = -1
    /// Audio in RED (RFC 2198): its blocks as parsed once where the packet arrived. A sink
    /// without RED takes the primary alone (`REDPayload.primary`); nil for plain Opus.
    var red: REDPayload? = nil
    /// The dependency descriptor (AV1 RTP specification, appendix A), when the publisher sends
    /// one: the frame's layers and decode target indications, and where its bytes are in
    /// `packet`. Read once where the packet arrived.
    var dependency: DependencyFrame? = nil
}
