/// The VP8 payload descriptor (RFC 7741 section 4.2) at the start of an RTP payload.
///
/// Offsets are relative to the payload start, so the same descriptor can rewrite PictureID and
/// TL0PICIDX either in the received payload or in its copy in an outgoing buffer.
public struct VP8PayloadDescriptor: Equatable, Sendable {
    public let isExtended: Bool
    public let isNonReference: Bool
    public let isStartOfPartition: Bool
    public let partitionIndex: UInt8
    /// 7 or 15 bits; nil when absent.
    public let pictureID: UInt16?
    /// True when PictureID is 15 bits wide (M bit set).
    public let hasLongPictureID: Bool
    public let tl0PicIdx: UInt8?
    public let temporalLayerIndex: UInt8?
    /// Y: this frame depends only on the base temporal layer.
    public let isLayerSync: Bool
    public let keyIndex: UInt8?
    /// Descriptor size: where the VP8 payload header starts.
    public let length: Int
    /// Set when the descriptor is followed by at least one payload byte.
    let payloadHeaderFirstByte: UInt8?

    @usableFromInline let pictureIDOffset: Int
    @usableFromInline let tl0PicIdxOffset: Int

    public init?(parsing payload: UnsafeRawBufferPointer) {
        guard payload.count >= 1 else { return nil }
        let first = payload[0]
        isExtended = first & 0x80 != 0
        isNonReference = first & 0x20 != 0
        isStartOfPartition = first & 0x10 != 0
        partitionIndex = first & 0x07
        var offset = 1
        var pictureID: UInt16?
        var longPictureID = false
        var tl0: UInt8?
        var tid: UInt8?
        var sync = false
        var keyIndex: UInt8?
        var pictureIDOffset = 0
        var tl0Offset = 0
        if isExtended {
            guard payload.count > offset else { return nil }
            let flags = payload[offset]
            offset += 1
            if flags & 0x80 != 0 {  // I
                guard payload.count > offset else { return nil }
                pictureIDOffset = offset
                if payload[offset] & 0x80 != 0 {
                    guard payload.count > offset + 1 else { return nil }
                    pictureID = UInt16(payload[offset] & 0x7f) << 8 | UInt16(payload[offset + 1])
                    longPictureID = true
                    offset += 2
                } else {
                    pictureID = UInt16(payload[offset])
                    offset += 1
                }
            }
            if flags & 0x40 != 0 {  // L
                guard payload.count > offset else { return nil }
                tl0Offset = offset
                tl0 = payload[offset]
                offset += 1
            }
            if flags & 0x30 != 0 {  // T or K share one byte
                guard payload.count > offset else { return nil }
                let byte = payload[offset]
                if flags & 0x20 != 0 {
                    tid = byte >> 6
                    sync = byte & 0x20 != 0
                }
                if flags & 0x10 != 0 { keyIndex = byte & 0x1f }
                offset += 1
            }
        }
        self.pictureID = pictureID
        hasLongPictureID = longPictureID
        tl0PicIdx = tl0
        temporalLayerIndex = tid
        isLayerSync = sync
        self.keyIndex = keyIndex
        length = offset
        payloadHeaderFirstByte = payload.count > offset ? payload[offset] : nil
        self.pictureIDOffset = pictureIDOffset
        self.tl0PicIdxOffset = tl0Offset
    }

    /// First packet of a key frame: start of partition 0 whose frame tag has P (inverse key frame) = 0.
    public var isKeyFrame: Bool {
        guard isStartOfPartition, partitionIndex == 0, let tag = payloadHeaderFirstByte else { return false }
        return tag & 0x01 == 0
    }

    /// Width and height from the key frame header (start code 9d 01 2a, then 14-bit little-endian
    /// sizes whose top 2 bits are a scale), or nil when this is not a key frame's first packet.
    public func keyFrameSize(in payload: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        guard isKeyFrame, payload.count >= length + 10 else { return nil }
        let frame = length
        guard payload[frame + 3] == 0x9d, payload[frame + 4] == 0x01, payload[frame + 5] == 0x2a else { return nil }
        let width = Int(payload[frame + 6]) | Int(payload[frame + 7] & 0x3f) << 8
        let height = Int(payload[frame + 8]) | Int(payload[frame + 9] & 0x3f) << 8
        return (width, height)
    }

    /// A key frame's first packet whose frame header has not VP8's start code where it belongs:
    /// the frame was encrypted end to end past fewer clear bytes than the header's 6 (its
    /// key-frame bit, then, says nothing).
    public func lacksStartCode(in payload: UnsafeRawBufferPointer) -> Bool {
        guard isKeyFrame, payload.count >= length + 6 else { return false }
        return payload[length + 3] != 0x9d || payload[length + 4] != 0x01 || payload[length + 5] != 0x2a
    }

    /// Writes `pictureID` in place, keeping the field's width (7 or 15 bits; higher bits dropped).
    /// False when the descriptor has no PictureID or `payload` is too short.
    @inlinable @discardableResult
    public func write(pictureID: UInt16, into payload: UnsafeMutableRawBufferPointer) -> Bool {
        guard self.pictureID != nil else { return false }
        if hasLongPictureID {
            guard payload.count >= pictureIDOffset + 2 else { return false }
            payload[pictureIDOffset] = 0x80 | UInt8(truncatingIfNeeded: pictureID >> 8) & 0x7f
            payload[pictureIDOffset + 1] = UInt8(truncatingIfNeeded: pictureID)
        } else {
            guard payload.count >= pictureIDOffset + 1 else { return false }
            payload[pictureIDOffset] = UInt8(truncatingIfNeeded: pictureID) & 0x7f
        }
        return true
    }

    /// Writes TL0PICIDX in place. False when the descriptor has none or `payload` is too short.
    @inlinable @discardableResult
    public func write(tl0PicIdx: UInt8, into payload: UnsafeMutableRawBufferPointer) -> Bool {
        guard self.tl0PicIdx != nil, payload.count > tl0PicIdxOffset else { return false }
        payload[tl0PicIdxOffset] = tl0PicIdx
        return true
    }
}
