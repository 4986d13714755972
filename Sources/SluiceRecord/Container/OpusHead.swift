/// The Opus identification header (RFC 7845 section 5.1): the CodecPrivate of a WebM Opus
/// track and what libavformat turns into the dOps box of MP4.
enum OpusHead {
    /// Pre-skip 0, not libopus's usual 312: a recording starts in the middle of the sender's
    /// stream, whose encoder delay is already inside the RTP timeline a live player hears. A
    /// pre-skip would make a player drop the first 6.5 ms and shift the audio 6.5 ms against the
    /// video, which the A/V offset budget (40 ms) does not need to spend.
    static let preSkip: UInt16 = 0

    /// 19 bytes: magic, version 1, channels, pre-skip, the input rate (48000), gain 0 and
    /// channel mapping family 0 (mono or stereo, no mapping table).
    static func bytes(channels: Int) -> [UInt8] {
        var head: [UInt8] = Array("OpusHead".utf8)
        head.append(1)
        head.append(UInt8(channels))
        head.append(contentsOf: littleEndian(UInt32(preSkip), bytes: 2))
        head.append(contentsOf: littleEndian(UInt32(RecordedAudioTrack.sampleRate), bytes: 4))
        head.append(contentsOf: [0, 0])
        head.append(0)
        return head
    }

    /// The duration of one Opus packet in 48 kHz samples, from its TOC byte (RFC 6716 section
    /// 3.1), or 0 for a packet too short to say. The MP4 muxer needs it for the last sample.
    static func packetSamples(_ packet: UnsafeRawBufferPointer) -> Int64 {
        guard let toc = packet.first else { return 0 }
        let config = Int(toc >> 3)
        // Frame sizes in 1/400 s (2.5 ms) units: SILK 10/20/40/60 ms, hybrid 10/20 ms, CELT
        // 2.5/5/10/20 ms.
        let unitsPerFrame: Int
        switch config {
        case 0...11: unitsPerFrame = [4, 8, 16, 24][config % 4]
        case 12...15: unitsPerFrame = [4, 8][config % 2]
        default: unitsPerFrame = [1, 2, 4, 8][config % 4]
        }
        let frames: Int
        switch toc & 0x03 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard packet.count >= 2 else { return 0 }
            frames = Int(packet[1] & 0x3F)
        }
        return Int64(frames * unitsPerFrame * 120)
    }

    private static func littleEndian(_ value: UInt32, bytes: Int) -> [UInt8] {
        (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
    }
}
