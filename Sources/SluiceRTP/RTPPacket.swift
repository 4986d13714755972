import SluiceWire

/// Why an RTP packet was rejected.
public enum RTPParseError: Error, Equatable, Sendable {
    case tooShort
    case badVersion
    case truncatedCSRCs
    case truncatedExtension
    case badPadding
}

/// A view over one decrypted RTP packet (RFC 3550) in a buffer the caller owns.
///
/// Parsing validates the header once and records the offsets, so every accessor
/// afterwards is a load at a known-good position. Setters write into the buffer:
/// the forwarder rewrites headers in place without copying.
public struct RTPPacket {
    public let buffer: UnsafeMutableRawBufferPointer
    @usableFromInline let base: UnsafeMutableRawPointer
    /// Fixed header, CSRCs and the extension block: where the payload starts.
    public let headerLength: Int
    /// Trailing padding bytes, including the count byte itself; 0 without the P bit.
    public let paddingLength: Int
    /// Offset of the first extension element (after the 4-byte block header); 0 when absent.
    @usableFromInline let extensionStart: Int
    @usableFromInline let extensionEnd: Int

    public static let fixedHeaderLength = 12

    /// Validates version 2, CSRC count, extension block length and padding against the buffer.
    public init(validating buffer: UnsafeMutableRawBufferPointer) throws(RTPParseError) {
        guard let base = buffer.baseAddress, buffer.count >= Self.fixedHeaderLength else { throw .tooShort }
        let count = buffer.count
        let first = base.load(as: UInt8.self)
        guard first >> 6 == 2 else { throw .badVersion }
        var offset = Self.fixedHeaderLength + Int(first & 0x0f) * 4
        guard offset <= count else { throw .truncatedCSRCs }
        var extensionStart = 0
        var extensionEnd = 0
        if first & 0x10 != 0 {
            guard offset + 4 <= count else { throw .truncatedExtension }
            let words = Int(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self)))
            extensionStart = offset + 4
            extensionEnd = extensionStart + words * 4
            guard extensionEnd <= count else { throw .truncatedExtension }
            offset = extensionEnd
        }
        var padding = 0
        if first & 0x20 != 0 {
            padding = Int(base.load(fromByteOffset: count - 1, as: UInt8.self))
            guard padding > 0, offset + padding <= count else { throw .badPadding }
        }
        self.buffer = buffer
        self.base = base
        self.headerLength = offset
        self.paddingLength = padding
        self.extensionStart = extensionStart
        self.extensionEnd = extensionEnd
    }

    /// Nil for anything that is not a well-formed RTP packet.
    @inlinable
    public init?(parsing buffer: UnsafeMutableRawBufferPointer) {
        guard let packet = try? RTPPacket(validating: buffer) else { return nil }
        self = packet
    }

    // MARK: Fixed header

    @inlinable public var version: UInt8 {
        @inline(__always) get { base.load(as: UInt8.self) >> 6 }
    }

    @inlinable public var hasPadding: Bool {
        @inline(__always) get { base.load(as: UInt8.self) & 0x20 != 0 }
    }

    @inlinable public var hasExtension: Bool {
        @inline(__always) get { base.load(as: UInt8.self) & 0x10 != 0 }
    }

    @inlinable public var csrcCount: Int {
        @inline(__always) get { Int(base.load(as: UInt8.self) & 0x0f) }
    }

    @inlinable public var marker: Bool {
        @inline(__always) get { base.load(fromByteOffset: 1, as: UInt8.self) & 0x80 != 0 }
        @inline(__always) nonmutating set {
            let byte = base.load(fromByteOffset: 1, as: UInt8.self)
            base.storeBytes(of: newValue ? byte | 0x80 : byte & 0x7f, toByteOffset: 1, as: UInt8.self)
        }
    }

    /// Seven bits; a setter value above 127 is masked.
    @inlinable public var payloadType: UInt8 {
        @inline(__always) get { base.load(fromByteOffset: 1, as: UInt8.self) & 0x7f }
        @inline(__always) nonmutating set {
            let byte = base.load(fromByteOffset: 1, as: UInt8.self)
            base.storeBytes(of: byte & 0x80 | newValue & 0x7f, toByteOffset: 1, as: UInt8.self)
        }
    }

    @inlinable public var sequenceNumber: UInt16 {
        @inline(__always) get { UInt16(bigEndian: base.loadUnaligned(fromByteOffset: 2, as: UInt16.self)) }
        @inline(__always) nonmutating set { base.storeBytes(of: newValue.bigEndian, toByteOffset: 2, as: UInt16.self) }
    }

    @inlinable public var timestamp: UInt32 {
        @inline(__always) get { UInt32(bigEndian: base.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) }
        @inline(__always) nonmutating set { base.storeBytes(of: newValue.bigEndian, toByteOffset: 4, as: UInt32.self) }
    }

    @inlinable public var ssrc: UInt32 {
        @inline(__always) get { UInt32(bigEndian: base.loadUnaligned(fromByteOffset: 8, as: UInt32.self)) }
        @inline(__always) nonmutating set { base.storeBytes(of: newValue.bigEndian, toByteOffset: 8, as: UInt32.self) }
    }

    /// The CSRC at `index`, or nil past `csrcCount`.
    @inlinable
    public func csrc(at index: Int) -> UInt32? {
        guard index >= 0, index < csrcCount else { return nil }
        return UInt32(bigEndian: base.loadUnaligned(fromByteOffset: 12 + index * 4, as: UInt32.self))
    }

    // MARK: Payload

    @inlinable public var payloadOffset: Int {
        @inline(__always) get { headerLength }
    }

    /// Payload bytes, excluding padding.
    @inlinable public var payloadLength: Int {
        @inline(__always) get { buffer.count - headerLength - paddingLength }
    }

    @inlinable public var payload: UnsafeMutableRawBufferPointer {
        @inline(__always) get { UnsafeMutableRawBufferPointer(start: base + headerLength, count: payloadLength) }
    }

    // MARK: Header extensions (RFC 8285)

    /// The block's profile: 0xBEDE for one-byte elements, 0x100X for two-byte elements.
    @inlinable public var extensionProfile: UInt16? {
        guard extensionStart > 0 else { return nil }
        return UInt16(bigEndian: base.loadUnaligned(fromByteOffset: extensionStart - 4, as: UInt16.self))
    }

    /// Offsets of the extension elements within the packet, after the 4-byte block header.
    @inlinable public var extensionRange: Range<Int>? {
        guard extensionStart > 0 else { return nil }
        return extensionStart..<extensionEnd
    }

    /// The elements of the extension block; empty when there is none or its profile is not RFC 8285.
    /// Element ranges are offsets within the packet.
    @inlinable public var extensions: RTPHeaderExtensionIterator {
        guard let profile = extensionProfile else {
            return RTPHeaderExtensionIterator(base: UnsafeRawPointer(base), profile: 0, range: 0..<0)
        }
        return RTPHeaderExtensionIterator(base: UnsafeRawPointer(base), profile: profile,
                                          range: extensionStart..<extensionEnd)
    }

    /// The value of the first element with `id`, writable in place (same length only).
    @inlinable
    public func extensionValue(id: UInt8) -> UnsafeMutableRawBufferPointer? {
        var elements = extensions
        while let element = elements.next() {
            if element.id == id {
                return UnsafeMutableRawBufferPointer(start: base + element.range.lowerBound,
                                                     count: element.range.count)
            }
        }
        return nil
    }

    // MARK: Demultiplexing (RFC 7983, RFC 5761)

    /// First byte 128...191: RTP or RTCP, as opposed to STUN, DTLS or ZRTP (`PacketClass`).
    @inlinable @inline(__always)
    public static func looksLikeRTPOrRTCP(firstByte: UInt8) -> Bool {
        PacketClass.of(firstByte: firstByte) == .rtp
    }

    /// With RTP and RTCP muxed, RTCP packet types 192...223 are payload types 64...95 once the
    /// marker bit is masked, a range RTP may not use.
    @inlinable @inline(__always)
    public static func isRTCP(secondByte: UInt8) -> Bool {
        let type = secondByte & 0x7f
        return type >= 64 && type <= 95
    }

    /// Version 2, long enough for a fixed header, and not an RTCP packet type.
    @inlinable
    public static func looksLikeRTP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= fixedHeaderLength && bytes[0] >> 6 == 2 && !isRTCP(secondByte: bytes[1])
    }

    /// Version 2, long enough for an RTCP header, and an RTCP packet type.
    @inlinable
    public static func looksLikeRTCP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 8 && bytes[0] >> 6 == 2 && isRTCP(secondByte: bytes[1])
    }
}
