import SluiceVocabulary
import SluiceWire

/// Rebuilds the frames of one recorded track (one kind, one codec) from its RTP packets as they
/// arrive: reordered, duplicated, lost and later repaired by NACK, across the wraparound of
/// sequence numbers and timestamps. Frames come out whole and in timestamp order.
///
/// A small jitter buffer: the oldest frame not yet handed out waits while it is incomplete (a
/// hole in its sequence numbers, no marker, or a hole before it), up to `maxWaitMicros` past
/// its first packet's arrival; then it is given up. Video after a loss (and before the first
/// key frame) is dropped up to the next key frame: a decoder cannot use frames that refer to
/// a lost one. `needsKeyFrame` says when the recorder should ask the publisher for one.
///
/// Time is the packets' clock (`arrivalMicros`), passed in as `now`: nothing here reads a clock.
/// Runs on the recorder thread, so it allocates freely.
public struct FrameAssembler {
    public let kind: MediaKind
    public let codec: RecordedCodec
    public let maxWaitMicros: UInt64
    /// Packets held at most; past it the oldest frame is given up, so a stream that never
    /// completes a frame cannot grow the buffer.
    public let maxBufferedPackets: Int

    /// Video waits for a key frame: at the start and after every lost frame.
    public private(set) var needsKeyFrame: Bool
    public private(set) var statistics = Statistics()

    public struct Statistics: Sendable, Equatable {
        /// Frames handed out.
        public var framesAssembled = 0
        /// Frames given up: incomplete past the wait, malformed, or pushed out by the packet cap.
        public var framesLost = 0
        /// Whole frames dropped while waiting for a key frame.
        public var framesSkipped = 0
        /// Packets dropped as duplicates, as late (their frame already out), or of another kind.
        public var packetsDropped = 0
        /// Holes in the sequence numbers that were never filled (lost packets, roughly).
        public var sequenceGaps = 0
    }

    private var depacketizer: any FrameDepacketizer
    private var sequences = SequenceUnwrapper()
    private var timestamps = TimestampUnwrapper()
    /// Frames not yet out, by unwrapped timestamp.
    private var pending: [Int64: PendingFrame] = [:]
    private var bufferedPackets = 0
    /// The last frame out or given up: its timestamp and last sequence number.
    private var lastTimestamp: Int64?
    private var lastSequence: Int64?

    struct PendingFrame {
        var packets: [Int64: RecordedPacket] = [:]
        var firstArrival: UInt64
        var lowest: Int64
        var highest: Int64
        var hasMarker = false
    }

    public init(kind: MediaKind, codec: RecordedCodec, maxWaitMicros: UInt64 = 200_000, maxBufferedPackets: Int = 2_000) {
        self.kind = kind
        self.codec = codec
        self.maxWaitMicros = maxWaitMicros
        self.maxBufferedPackets = max(1, maxBufferedPackets)
        self.depacketizer = makeDepacketizer(for: codec)
        self.needsKeyFrame = codec.isVideo
    }

    /// The latest H264 SPS and PPS (NAL units, no start code): the MP4 writer's avcC.
    public var h264ParameterSets: (sps: [UInt8], pps: [UInt8])? {
        guard let h264 = depacketizer as? H264Depacketizer,
              let sps = h264.sequenceParameterSet, let pps = h264.pictureParameterSet else { return nil }
        return (sps, pps)
    }

    /// The latest AV1 sequence header OBU (with obu_size): the WebM writer's CodecPrivate.
    public var av1SequenceHeaderOBU: [UInt8]? {
        (depacketizer as? AV1Depacketizer)?.sequenceHeaderOBU
    }

    /// Packets held now.
    public var bufferedPacketCount: Int { bufferedPackets }

    /// Takes one packet; returns the frames it completed (and any given up by `now`), in order.
    public mutating func insert(_ packet: RecordedPacket, now: UInt64) -> [AssembledFrame] {
        accept(packet)
        return flush(now: now)
    }

    /// Hands out what is complete, and gives up frames that waited past `maxWaitMicros` by
    /// `now`. Call it on a timer too, so the last frames before a pause come out.
    /// `flush(now: .max)` at the end of a recording gives up everything still incomplete.
    public mutating func flush(now: UInt64) -> [AssembledFrame] {
        var out: [AssembledFrame] = []
        while let key = pending.keys.min(), let frame = pending[key] {
            let complete = isComplete(frame)
            let continuous = lastSequence.map { frame.lowest == $0 + 1 } ?? true
            let waitedOut = now >= frame.firstArrival && now - frame.firstArrival >= maxWaitMicros
            if complete && continuous {
                emit(key, frame, into: &out)
            } else if waitedOut {
                if complete {
                    // The hole was before it: whole frames lost (or a stream that jumped). It may still
                    // be usable, as a key frame.
                    noteLoss(gap: true)
                    emit(key, frame, into: &out)
                } else {
                    noteLoss(gap: !continuous)
                    drop(key, frame)
                    statistics.framesLost += 1
                }
            } else {
                break
            }
        }
        return out
    }

    private mutating func accept(_ packet: RecordedPacket) {
        guard packet.kind == kind else {
            statistics.packetsDropped += 1
            return
        }
        let sequence = sequences.unwrap(packet.sequenceNumber)
        let timestamp = timestamps.unwrap(packet.timestamp)
        if let lastSequence, sequence <= lastSequence {
            statistics.packetsDropped += 1  // late: a repair after its frame was out or given up
            return
        }
        if let lastTimestamp, timestamp <= lastTimestamp {
            statistics.packetsDropped += 1
            return
        }
        var frame = pending[timestamp] ?? PendingFrame(firstArrival: packet.arrivalMicros, lowest: sequence, highest: sequence)
        guard frame.packets[sequence] == nil else {
            statistics.packetsDropped += 1  // a duplicate (retransmission after the original came)
            return
        }
        frame.packets[sequence] = packet
        frame.lowest = min(frame.lowest, sequence)
        frame.highest = max(frame.highest, sequence)
        frame.firstArrival = min(frame.firstArrival, packet.arrivalMicros)
        if packet.marker { frame.hasMarker = true }
        pending[timestamp] = frame
        bufferedPackets += 1
        while bufferedPackets > maxBufferedPackets, let oldest = pending.keys.min(), let victim = pending[oldest] {
            noteLoss(gap: false)
            drop(oldest, victim)
            statistics.framesLost += 1
        }
    }

    /// Every sequence number from the first to the last, the last with the marker (video), the
    /// first one the codec lets open a frame.
    private func isComplete(_ frame: PendingFrame) -> Bool {
        guard frame.highest - frame.lowest + 1 == Int64(frame.packets.count) else { return false }
        if !codec.isVideo { return true }
        guard let last = frame.packets[frame.highest], last.marker,
              let first = frame.packets[frame.lowest] else { return false }
        return depacketizer.canStartFrame(first.payload)
    }

    private mutating func emit(_ key: Int64, _ frame: PendingFrame, into out: inout [AssembledFrame]) {
        let packets = frame.packets.keys.sorted().compactMap { frame.packets[$0] }
        drop(key, frame)
        guard let built = depacketizer.depacketize(packets) else {
            statistics.framesLost += 1
            noteLoss(gap: false)
            return
        }
        if codec.isVideo {
            if needsKeyFrame && !built.isKeyFrame {
                statistics.framesSkipped += 1
                return
            }
            if built.isKeyFrame { needsKeyFrame = false }
        }
        statistics.framesAssembled += 1
        out.append(AssembledFrame(kind: kind, codec: codec, data: built.data, rtpTimestamp: key,
                                  isKeyFrame: built.isKeyFrame, width: built.width, height: built.height,
                                  arrivalMicros: frame.firstArrival))
    }

    /// Takes a frame out of the buffer; what comes later must follow it.
    private mutating func drop(_ key: Int64, _ frame: PendingFrame) {
        pending[key] = nil
        bufferedPackets -= frame.packets.count
        lastTimestamp = max(lastTimestamp ?? key, key)
        lastSequence = max(lastSequence ?? frame.highest, frame.highest)
    }

    private mutating func noteLoss(gap: Bool) {
        if gap { statistics.sequenceGaps += 1 }
        if codec.isVideo { needsKeyFrame = true }
    }
}
