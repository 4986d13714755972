import SluiceWire

/// A parsed view over one STUN message (RFC 8489) in caller-owned bytes. Parsing walks the
/// attributes once, bounds-checked, and records where the ones ICE needs are; values alias
/// the input, so nothing is allocated. The view is valid while the bytes are.
public struct STUNMessage {
    public static let headerSize = 20
    public static let magicCookie: UInt32 = 0x2112_A442
    static let fingerprintXOR: UInt32 = 0x5354_554E

    /// The message itself: the header and `length` bytes of attributes (trailing bytes dropped).
    public let bytes: UnsafeRawBufferPointer
    public let type: STUNMessageType
    public let transactionID: STUNTransactionID

    public private(set) var priority: UInt32?
    public private(set) var useCandidate = false
    public private(set) var iceControlling: UInt64?
    public private(set) var iceControlled: UInt64?
    /// Offset of the MESSAGE-INTEGRITY attribute header, if present.
    public private(set) var messageIntegrityOffset: Int?
    /// Offset of the FINGERPRINT attribute header, if present.
    public private(set) var fingerprintOffset: Int?
    private var usernameRange: Range<Int>?
    private var xorMappedAddressRange: Range<Int>?
    private var errorCodeRange: Range<Int>?

    /// RFC 7983 demultiplexing: a first byte of 0...3 and the magic cookie in place.
    public static func isSTUN(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= headerSize && PacketClass.of(firstByte: bytes[0]) == .stun && bytes.loadBigEndianUInt32(at: 4) == magicCookie
    }

    public init(parsing datagram: UnsafeRawBufferPointer) throws(STUNParseError) {
        guard datagram.count >= STUNMessage.headerSize else { throw .tooShort }
        guard datagram[0] & 0xC0 == 0,
              datagram.loadBigEndianUInt32(at: 4) == STUNMessage.magicCookie else { throw .notSTUN }
        let length = Int(datagram.loadBigEndianUInt16(at: 2))
        guard length & 3 == 0, STUNMessage.headerSize + length <= datagram.count else { throw .badLength }
        let bytes = UnsafeRawBufferPointer(rebasing: datagram[0..<STUNMessage.headerSize + length])
        self.bytes = bytes
        type = STUNMessageType(rawValue: bytes.loadBigEndianUInt16(at: 0))
        transactionID = STUNTransactionID(unchecked: bytes, at: 8)

        var offset = STUNMessage.headerSize
        while offset < bytes.count {
            guard offset + 4 <= bytes.count else { throw .truncatedAttribute }
            let attributeType = bytes.loadBigEndianUInt16(at: offset)
            let valueLength = Int(bytes.loadBigEndianUInt16(at: offset + 2))
            let valueStart = offset + 4
            let padded = (valueLength + 3) & ~3
            guard valueStart + padded <= bytes.count else { throw .truncatedAttribute }
            let value = valueStart..<valueStart + valueLength

            if attributeType == STUNAttributeType.fingerprint {
                guard valueLength == 4 else { throw .badAttributeValue(attributeType) }
                fingerprintOffset = offset
                break  // FINGERPRINT is last; anything after it is ignored.
            }
            // After MESSAGE-INTEGRITY only FINGERPRINT counts (RFC 8489 section 14.5).
            if messageIntegrityOffset == nil {
                try record(attributeType, value, at: offset)
            }
            offset = valueStart + padded
        }
    }

    /// Keeps the first occurrence of each attribute ICE uses.
    private mutating func record(_ attributeType: UInt16, _ value: Range<Int>, at offset: Int) throws(STUNParseError) {
        switch attributeType {
        case STUNAttributeType.username:
            if usernameRange == nil { usernameRange = value }
        case STUNAttributeType.messageIntegrity:
            guard value.count == STUNIntegrityKey.hmacSize else { throw .badAttributeValue(attributeType) }
            messageIntegrityOffset = offset
        case STUNAttributeType.priority:
            guard value.count == 4 else { throw .badAttributeValue(attributeType) }
            if priority == nil { priority = bytes.loadBigEndianUInt32(at: value.lowerBound) }
        case STUNAttributeType.useCandidate:
            useCandidate = true
        case STUNAttributeType.iceControlling:
            guard value.count == 8 else { throw .badAttributeValue(attributeType) }
            if iceControlling == nil { iceControlling = loadUInt64(at: value.lowerBound) }
        case STUNAttributeType.iceControlled:
            guard value.count == 8 else { throw .badAttributeValue(attributeType) }
            if iceControlled == nil { iceControlled = loadUInt64(at: value.lowerBound) }
        case STUNAttributeType.xorMappedAddress:
            if xorMappedAddressRange == nil { xorMappedAddressRange = value }
        case STUNAttributeType.errorCode:
            guard value.count >= 4 else { throw .badAttributeValue(attributeType) }
            if errorCodeRange == nil { errorCodeRange = value }
        default:
            break
        }
    }

    private func loadUInt64(at offset: Int) -> UInt64 {
        UInt64(bytes.loadBigEndianUInt32(at: offset)) << 32 | UInt64(bytes.loadBigEndianUInt32(at: offset + 4))
    }

    private func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[range])
    }

    /// The length field: bytes of attributes after the header.
    public var length: Int { bytes.count - STUNMessage.headerSize }

    public var attributes: STUNAttributeIterator { STUNAttributeIterator(bytes: bytes) }

    public var username: UnsafeRawBufferPointer? { usernameRange.map(slice) }

    /// For ICE, USERNAME is "<receiver ufrag>:<sender ufrag>"; this is the part before the
    /// first ':' (the whole value if there is none). A worker looks the transport up by it.
    public var usernameLocalFragment: UnsafeRawBufferPointer? {
        guard let range = usernameRange else { return nil }
        var end = range.lowerBound
        while end < range.upperBound, bytes[end] != UInt8(ascii: ":") { end += 1 }
        return slice(range.lowerBound..<end)
    }

    /// The part of USERNAME after the first ':', or nil if there is no ':'.
    public var usernameRemoteFragment: UnsafeRawBufferPointer? {
        guard let range = usernameRange else { return nil }
        var colon = range.lowerBound
        while colon < range.upperBound, bytes[colon] != UInt8(ascii: ":") { colon += 1 }
        guard colon < range.upperBound else { return nil }
        return slice(colon + 1..<range.upperBound)
    }

    /// The XOR-MAPPED-ADDRESS decoded, or nil if absent or malformed.
    public var xorMappedAddress: SocketAddress? {
        guard let range = xorMappedAddressRange, range.count >= 8 else { return nil }
        let base = range.lowerBound
        let port = bytes.loadBigEndianUInt16(at: base + 2) ^ UInt16(STUNMessage.magicCookie >> 16)
        switch bytes[base + 1] {
        case 0x01 where range.count == 8:
            let a = bytes.loadBigEndianUInt32(at: base + 4) ^ STUNMessage.magicCookie
            return SocketAddress(ipv4: (UInt8(a >> 24), UInt8(a >> 16 & 0xFF), UInt8(a >> 8 & 0xFF), UInt8(a & 0xFF)),
                                 port: port)
        case 0x02 where range.count == 20:
            // The IPv6 address is XORed with the cookie followed by the transaction id.
            let high = loadUInt64(at: base + 4) ^ (UInt64(STUNMessage.magicCookie) << 32 | transactionID.high >> 32)
            let low = loadUInt64(at: base + 12) ^ (transactionID.high << 32 | UInt64(transactionID.low))
            return SocketAddress(ipv6: high, low: low, port: port)
        default:
            return nil
        }
    }

    /// ERROR-CODE as (class * 100 + number, reason phrase bytes).
    public var errorCode: (code: Int, reason: UnsafeRawBufferPointer)? {
        guard let range = errorCodeRange else { return nil }
        let code = Int(bytes[range.lowerBound + 2] & 0x07) * 100 + Int(bytes[range.lowerBound + 3])
        return (code, slice(range.lowerBound + 4..<range.upperBound))
    }

    /// Checks MESSAGE-INTEGRITY: HMAC-SHA1 over the message up to that attribute, with the length
    /// field counting up to and including it (RFC 8489 section 14.5). False when absent.
    public func checkMessageIntegrity(key: STUNIntegrityKey) -> Bool {
        guard let offset = messageIntegrityOffset else { return false }
        let adjustedLength = UInt16(offset + 4 + STUNIntegrityKey.hmacSize - STUNMessage.headerSize)
        var lengthField = adjustedLength.bigEndian
        var computed: (UInt64, UInt64, UInt32) = (0, 0, 0)
        let ok = withUnsafeBytes(of: &lengthField) { lengthBytes in
            withUnsafeMutableBytes(of: &computed) { out in
                key.authenticate(slice(0..<2), lengthBytes, slice(4..<offset), into: out.baseAddress!)
            }
        }
        guard ok else { return false }
        return withUnsafeBytes(of: &computed) { out in
            var difference: UInt8 = 0
            for i in 0..<STUNIntegrityKey.hmacSize { difference |= out[i] ^ bytes[offset + 4 + i] }
            return difference == 0
        }
    }

    /// Checks FINGERPRINT: CRC-32 of the message up to that attribute, XOR 0x5354554E, with the
    /// length field counting the FINGERPRINT attribute. False when absent.
    public func checkFingerprint() -> Bool {
        guard let offset = fingerprintOffset else { return false }
        return STUNMessage.fingerprint(of: bytes, upTo: offset) == bytes.loadBigEndianUInt32(at: offset + 4)
    }

    static func fingerprint(of bytes: UnsafeRawBufferPointer, upTo offset: Int) -> UInt32 {
        var lengthField = UInt16(offset + 8 - headerSize).bigEndian
        var crc = CRC32.update(0, UnsafeRawBufferPointer(rebasing: bytes[0..<2]))
        crc = withUnsafeBytes(of: &lengthField) { CRC32.update(crc, $0) }
        crc = CRC32.update(crc, UnsafeRawBufferPointer(rebasing: bytes[4..<offset]))
        return crc ^ fingerprintXOR
    }
}
