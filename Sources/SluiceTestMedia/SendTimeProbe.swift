import SluiceRTP

/// A send timestamp carried inside a synthetic payload, so that a player on the same host
/// measures one-way delay on one clock (CLOCK_MONOTONIC, shared by every process):
/// 4 bytes "SLTS", then 8 bytes of `MonotonicClock.nowMicros()`, big-endian.
///
/// Where it sits: in a synthetic VP8 payload, after the payload descriptor and, in a frame's
/// first packet, after the VP8 frame header (10 bytes for a key frame, 3 otherwise), so the
/// key-frame header stays valid; in a synthetic Opus payload, after the TOC byte.
public enum SendTimeProbe {
    public static let size = 12
    static let magic: UInt32 = 0x534C_5453  // "SLTS"

    /// Writes the probe at `offset`; false when it does not fit.
    @inline(__always) @discardableResult
    public static func write(_ micros: UInt64, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Bool {
        guard offset >= 0, offset + size <= buffer.count else { return false }
        for i in 0..<4 { buffer[offset + i] = UInt8(truncatingIfNeeded: magic >> UInt32(24 - 8 * i)) }
        for i in 0..<8 { buffer[offset + 4 + i] = UInt8(truncatingIfNeeded: micros >> UInt64(56 - 8 * i)) }
        return true
    }

    /// The send time at `offset`, or nil when there is no probe there.
    @inline(__always)
    public static func read(from buffer: UnsafeRawBufferPointer, at offset: Int) -> UInt64? {
        guard offset >= 0, offset + size <= buffer.count else { return nil }
        var tag: UInt32 = 0
        for i in 0..<4 { tag = tag << 8 | UInt32(buffer[offset + i]) }
        guard tag == magic else { return nil }
        var micros: UInt64 = 0
        for i in 0..<8 { micros = micros << 8 | UInt64(buffer[offset + 4 + i]) }
        return micros
    }

    /// The send time in a synthetic VP8 RTP payload.
    public static func read(vp8Payload payload: UnsafeRawBufferPointer) -> UInt64? {
        guard let descriptor = VP8PayloadDescriptor(parsing: payload) else { return nil }
        var offset = descriptor.length
        if descriptor.isStartOfPartition && descriptor.partitionIndex == 0 {
            offset += descriptor.isKeyFrame ? SyntheticVP8Source.keyFrameHeaderSize : SyntheticVP8Source.frameTagSize
        }
        return read(from: payload, at: offset)
    }

    /// The send time in a synthetic Opus RTP payload.
    public static func read(opusPayload payload: UnsafeRawBufferPointer) -> UInt64? {
        read(from: payload, at: 1)
    }
}
