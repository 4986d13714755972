import SluiceRecord
import SluiceVocabulary

/// Reads arbitrary bytes as a sequence of RTP packets of one recorded track and feeds them to
/// every depacketizer (frame by frame) and to a FrameAssembler, whose frames go through a
/// RecordingTimeline. Checks the assembler's promises: frames in strictly increasing timestamp
/// order, the packet cap held, time never backwards per track.
///
/// Input: byte 0 picks the codec (low 3 bits, mod 5); then records of
///   [flags] [length] [length payload bytes]
/// flags: bit 0 marker, bit 1 a new frame (timestamp + 3000), bits 2-4 the sequence step - 3
/// (so -3...+4: reordering, duplicates, gaps), bit 5 a timestamp jump of 2^31 - 1, bit 6 a
/// flush 250 ms later (a frame given up), bit 7 a sender report for the track at this packet.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecordAssembly(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let codec = RecordedCodec.allCases[Int(bytes[0] & 0x07) % RecordedCodec.allCases.count]
    let kind: MediaKind = codec.isVideo ? .video : .audio
    let cap = 64
    var assembler = FrameAssembler(kind: kind, codec: codec, maxWaitMicros: 200_000, maxBufferedPackets: cap)
    var timeline = RecordingTimeline()
    var depacketizers = RecordedCodec.allCases.map { makeDepacketizer(for: $0) }

    // Start near both wraps.
    var sequence: UInt16 = 65_530
    var timestamp: UInt32 = UInt32.max - 6_000
    var now: UInt64 = 1_000_000
    var group: [RecordedPacket] = []
    var lastOut: Int64?
    var lastMillis: Int64?

    func take(_ frames: [AssembledFrame]) {
        for frame in frames {
            precondition(frame.kind == kind && frame.codec == codec)
            if let lastOut { precondition(frame.rtpTimestamp > lastOut, "frames out of order") }
            lastOut = frame.rtpTimestamp
            let millis = timeline.millis(kind: kind, rtpTimestamp: frame.rtpTimestamp, arrivalMicros: frame.arrivalMicros)
            if let lastMillis { precondition(millis >= lastMillis, "timeline went backwards") }
            lastMillis = millis
        }
        precondition(assembler.bufferedPacketCount <= cap)
    }
    func depacketizeGroup() {
        guard !group.isEmpty else { return }
        for index in depacketizers.indices {
            _ = depacketizers[index].depacketize(group)
            _ = depacketizers[index].canStartFrame(group[0].payload)
        }
        group.removeAll()
    }

    var offset = 1
    while offset + 2 <= bytes.count {
        let flags = bytes[offset]
        let length = min(Int(bytes[offset + 1]), bytes.count - offset - 2)
        let payload = Array(bytes[(offset + 2)..<(offset + 2 + length)])
        offset += 2 + length

        if flags & 0x02 != 0 {
            timestamp &+= 3_000
            depacketizeGroup()
        }
        if flags & 0x20 != 0 { timestamp &+= UInt32(Int32.max) }
        sequence = sequence &+ UInt16(truncatingIfNeeded: Int(flags >> 2 & 0x07) - 3)
        now += 10_000
        let packet = RecordedPacket(kind: kind, sequenceNumber: sequence, timestamp: timestamp, marker: flags & 0x01 != 0,
                                    payload: payload, arrivalMicros: now)
        group.append(packet)
        if flags & 0x80 != 0 {
            timeline.add(RecordedClockPair(kind: kind, ntp: UInt64(now) << 20, rtpTimestamp: timestamp))
        }
        take(assembler.insert(packet, now: now))
        if flags & 0x40 != 0 {
            now += 250_000
            take(assembler.flush(now: now))
        }
    }
    depacketizeGroup()
    take(assembler.flush(now: .max))
    precondition(assembler.bufferedPacketCount == 0)
    _ = assembler.h264ParameterSets
    _ = assembler.av1SequenceHeaderOBU
    return 0
}
