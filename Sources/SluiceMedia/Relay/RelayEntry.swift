import SluiceRTP
import SluiceVocabulary

/// One packet handed from the worker that receives a stream to another worker with players of
/// it: which buffer of the sender's pool holds the packet (one reference counted in the
/// sender's `SharedPackets`, now the receiver's to give back), and what the producer learned
/// about it. Plain values only, so it is copied into a queue slot without allocating.
struct RelayEntry {
    /// The receiving worker's `RelayIngress` (`RelayKey`).
    var key: UInt32 = 0
    var buffer: Int32 = -1
    var length: UInt16 = 0
    var layer: UInt8 = 0
    var flags: UInt8 = 0
    var temporalLayer: UInt8 = 0
    var audioLevel: UInt8 = 0
    var clockRate: UInt32 = 0
    /// The dependency descriptor as the home read it (its bytes are in the packet).
    var dependency: DependencyFrame?

    static let video: UInt8 = 1
    static let keyFrame: UInt8 = 2
    static let hasTemporalLayer: UInt8 = 4
    static let hasAudioLevel: UInt8 = 8
    /// The payload starts with a VP8 descriptor; the receiver parses it again (a few
    /// instructions once per worker, rather than carrying the parsed value).
    static let vp8: UInt8 = 16
    /// Audio in RED, parsed again by the receiver like the VP8 descriptor.
    static let red: UInt8 = 32

    var kind: MediaKind { flags & Self.video != 0 ? .video : .audio }
}

/// Names one worker's ingress of one stream: a slot in its table and the slot's generation,
/// so a packet still in flight for an ingress that went away is never taken for the one that
/// reuses its slot.
struct RelayKey: Equatable {
    let slot: Int
    let generation: UInt16

    init(slot: Int, generation: UInt16) {
        self.slot = slot
        self.generation = generation
    }

    init(_ raw: UInt32) {
        slot = Int(raw & 0xffff)
        generation = UInt16(raw >> 16)
    }

    var raw: UInt32 { UInt32(generation) << 16 | UInt32(slot) }
}
