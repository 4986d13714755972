import SluiceRTP
import SluiceWire

/// What a player checks on one received RTP stream without decoding: sequence continuity
/// (gaps, loss, duplicates, reordering), key frames and their size, and one-way delay from
/// the `SendTimeProbe` in synthetic payloads. Recording allocates nothing.
public struct ReceivedStreamStats {
    public enum Codec: Sendable { case vp8, opus, other }

    /// Sequence numbers remembered for duplicate detection.
    static let window = 1024

    public let codec: Codec
    public private(set) var ssrc: UInt32?
    public private(set) var packets: UInt64 = 0
    public private(set) var payloadBytes: UInt64 = 0
    /// Packets whose sequence number was seen already (within the last 1024).
    public private(set) var duplicates: UInt64 = 0
    /// Packets older than the newest one seen, not duplicates.
    public private(set) var reordered: UInt64 = 0
    /// Forward jumps of more than one sequence number.
    public private(set) var gaps: UInt64 = 0
    /// The SSRC changed (the extended numbering restarts).
    public private(set) var ssrcChanges: UInt64 = 0
    public private(set) var keyFrames: UInt64 = 0
    public private(set) var lastKeyFrameSize: (width: Int, height: Int)?
    public private(set) var delay = DelayHistogram()
    /// Packets stamped (sent by the publisher) before this time add no delay sample: set it to
    /// when the player asked to play, so a catch-up from the key-frame cache is not counted as
    /// forwarding delay. Same clock as the stamps (`MonotonicClock`); 0: every packet counts.
    public var delayNotBefore: UInt64 = 0
    /// The first and newest extended sequence numbers of the current SSRC.
    public private(set) var firstSequence: Int64 = -1
    public private(set) var highestSequence: Int64 = -1
    public private(set) var firstPacketMicros: UInt64?

    private var unwrapper = SequenceUnwrapper()
    private var uniqueSinceSSRC: Int64 = 0
    private var lostBeforeSSRC: Int64 = 0
    private var seen: [UInt64]

    public init(codec: Codec) {
        self.codec = codec
        seen = [UInt64](repeating: 0, count: Self.window / 64)
    }

    /// Sequence numbers never received between the first and the newest (all SSRCs).
    public var lost: Int64 {
        let expected = highestSequence >= firstSequence && firstSequence >= 0 ? highestSequence - firstSequence + 1 : 0
        return lostBeforeSSRC + max(0, expected - uniqueSinceSSRC)
    }

    public mutating func record(_ packet: RTPPacket, now: UInt64) {
        if ssrc != packet.ssrc {
            if ssrc != nil {
                ssrcChanges += 1
                lostBeforeSSRC = lost
            }
            ssrc = packet.ssrc
            unwrapper = SequenceUnwrapper()
            firstSequence = -1
            highestSequence = -1
            uniqueSinceSSRC = 0
            for i in seen.indices { seen[i] = 0 }
        }
        packets += 1
        payloadBytes += UInt64(packet.payloadLength)
        if firstPacketMicros == nil { firstPacketMicros = now }

        let sequence = unwrapper.unwrap(packet.sequenceNumber)
        if firstSequence < 0 {
            firstSequence = sequence
            highestSequence = sequence
            markSeen(sequence)
            uniqueSinceSSRC = 1
        } else if sequence > highestSequence {
            if sequence > highestSequence + 1 { gaps += 1 }
            for s in max(highestSequence + 1, sequence - Int64(Self.window) + 1)..<sequence { clearSeen(s) }
            highestSequence = sequence
            markSeen(sequence)
            uniqueSinceSSRC += 1
        } else if sequence <= highestSequence - Int64(Self.window) || sequence < firstSequence {
            reordered += 1
        } else if isSeen(sequence) {
            duplicates += 1
            return
        } else {
            reordered += 1
            markSeen(sequence)
            uniqueSinceSSRC += 1
        }

        let payload = UnsafeRawBufferPointer(packet.payload)
        switch codec {
        case .vp8:
            if let descriptor = VP8PayloadDescriptor(parsing: payload), descriptor.isKeyFrame {
                keyFrames += 1
                if let size = descriptor.keyFrameSize(in: payload) { lastKeyFrameSize = size }
            }
            if let sent = SendTimeProbe.read(vp8Payload: payload) { recordDelay(sent: sent, now: now) }
        case .opus:
            if let sent = SendTimeProbe.read(opusPayload: payload) { recordDelay(sent: sent, now: now) }
        case .other:
            break
        }
    }

    private mutating func recordDelay(sent: UInt64, now: UInt64) {
        // A probe from the future means another clock; it says nothing about delay. A packet
        // the publisher sent before this player asked to play came from the server's
        // key-frame cache (instant join): it is late by design, by its age in the cache.
        guard now >= sent, sent >= delayNotBefore else { return }
        delay.record(micros: now - sent)
    }

    @inline(__always) private func bit(_ sequence: Int64) -> (Int, UInt64) {
        let slot = Int(UInt64(bitPattern: sequence) % UInt64(Self.window))
        return (slot / 64, 1 << UInt64(slot % 64))
    }

    private mutating func markSeen(_ sequence: Int64) {
        let (word, mask) = bit(sequence)
        seen[word] |= mask
    }

    private mutating func clearSeen(_ sequence: Int64) {
        let (word, mask) = bit(sequence)
        seen[word] &= ~mask
    }

    private func isSeen(_ sequence: Int64) -> Bool {
        let (word, mask) = bit(sequence)
        return seen[word] & mask != 0
    }
}
