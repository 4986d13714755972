/// RFC 4571 framing, the receive side: on a TCP media connection (ICE-TCP, RFC 6544) every
/// STUN, DTLS or SRTP packet is preceded by its length, 16 bits big-endian. TCP delivers a
/// byte stream, so one read can hold half a header, several frames, or the end of one frame
/// and the start of the next.
///
/// A pure type: bytes in, frames out, no socket and no allocation. A frame that lies wholly
/// inside the input is returned in place (a view of the caller's read buffer, which SRTP may
/// then decrypt in place); one split across reads is assembled in `storage`, the caller's
/// buffer of at least `maxFrameLength` bytes, and returned from there. Either view is valid
/// until the next call.
///
/// A length over `maxFrameLength` is bad input (no WebRTC stack frames packets larger than a
/// datagram): the decoder reports it and stays failed, and the caller closes the connection.
/// An empty frame carries no packet and is skipped.
public struct RFC4571FrameDecoder: Sendable {
    public enum Output {
        /// A complete packet, valid until the next call.
        case frame(UnsafeMutableRawBufferPointer)
        /// Everything given was consumed without completing a frame.
        case needMoreInput
        /// The stream announced a frame of `length` bytes, over the limit.
        case frameTooLong(length: Int)
    }

    public let maxFrameLength: Int
    /// -1 while the length is being read; else the length of the frame being read.
    private var expected = -1
    /// The first length byte, when a read ended between the two.
    private var pendingHigh: Int = -1
    /// Bytes of a split frame already copied into `storage`.
    private var filled = 0
    private var failedLength = -1

    public init(maxFrameLength: Int) {
        precondition(maxFrameLength > 0 && maxFrameLength <= 65535)
        self.maxFrameLength = maxFrameLength
    }

    /// True while a frame (or its length) is partly read.
    public var isMidFrame: Bool { expected >= 0 || pendingHigh >= 0 }

    /// Consumes bytes of `input` from `offset` (advanced past what was used) until one frame
    /// is complete. Call again with the same input and offset until `.needMoreInput`.
    public mutating func nextFrame(in input: UnsafeMutableRawBufferPointer, offset: inout Int,
                                   storage: UnsafeMutableRawBufferPointer) -> Output {
        precondition(storage.count >= maxFrameLength, "storage smaller than maxFrameLength")
        if failedLength >= 0 { return .frameTooLong(length: failedLength) }
        while true {
            if expected < 0 {
                let available = input.count - offset
                if pendingHigh >= 0 {
                    guard available >= 1 else { return .needMoreInput }
                    expected = pendingHigh << 8 | Int(input[offset])
                    pendingHigh = -1
                    offset += 1
                } else if available >= 2 {
                    expected = Int(input[offset]) << 8 | Int(input[offset + 1])
                    offset += 2
                } else {
                    if available == 1 {
                        pendingHigh = Int(input[offset])
                        offset += 1
                    }
                    return .needMoreInput
                }
                if expected > maxFrameLength {
                    failedLength = expected
                    return .frameTooLong(length: expected)
                }
                filled = 0
                if expected == 0 {
                    expected = -1
                    continue
                }
            }
            let available = input.count - offset
            if filled == 0 && available >= expected {
                let frame = UnsafeMutableRawBufferPointer(rebasing: input[offset..<offset + expected])
                offset += expected
                expected = -1
                return .frame(frame)
            }
            let take = min(expected - filled, available)
            if take > 0 {
                (storage.baseAddress! + filled).copyMemory(from: input.baseAddress! + offset, byteCount: take)
                filled += take
                offset += take
            }
            guard filled == expected else { return .needMoreInput }
            let length = expected
            expected = -1
            filled = 0
            return .frame(UnsafeMutableRawBufferPointer(rebasing: storage[0..<length]))
        }
    }
}
