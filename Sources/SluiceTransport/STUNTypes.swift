import SluiceWire

/// The class bits of a STUN message type (RFC 8489 section 5).
public enum STUNMessageClass: UInt8, Sendable {
    case request = 0
    case indication = 1
    case successResponse = 2
    case errorResponse = 3
}

/// A STUN message type: a 12-bit method interleaved with the two class bits.
public struct STUNMessageType: Hashable, Sendable {
    public static let bindingMethod: UInt16 = 0x001

    public var method: UInt16
    public var messageClass: STUNMessageClass

    public init(method: UInt16, messageClass: STUNMessageClass) {
        self.method = method & 0x0FFF
        self.messageClass = messageClass
    }

    /// Decodes the 14 significant bits: M11..M7 C1 M6..M4 C0 M3..M0.
    public init(rawValue: UInt16) {
        let c0 = (rawValue >> 4) & 0x1
        let c1 = (rawValue >> 8) & 0x1
        let m = (rawValue & 0x000F) | ((rawValue >> 1) & 0x0070) | ((rawValue >> 2) & 0x0F80)
        self.method = m
        self.messageClass = STUNMessageClass(rawValue: UInt8(c1 << 1 | c0)) ?? .request
    }

    public var rawValue: UInt16 {
        let c = UInt16(messageClass.rawValue)
        let m = method & 0x0FFF
        return (m & 0x000F) | ((m & 0x0070) << 1) | ((m & 0x0F80) << 2) | ((c & 0x1) << 4) | ((c & 0x2) << 7)
    }

    public static let bindingRequest = STUNMessageType(method: bindingMethod, messageClass: .request)
    public static let bindingIndication = STUNMessageType(method: bindingMethod, messageClass: .indication)
    public static let bindingSuccessResponse = STUNMessageType(method: bindingMethod, messageClass: .successResponse)
    public static let bindingErrorResponse = STUNMessageType(method: bindingMethod, messageClass: .errorResponse)
}

/// Attribute type codes used by ICE (RFC 8489 section 18.3, RFC 8445 section 16.1).
public enum STUNAttributeType {
    public static let mappedAddress: UInt16 = 0x0001
    public static let username: UInt16 = 0x0006
    public static let messageIntegrity: UInt16 = 0x0008
    public static let errorCode: UInt16 = 0x0009
    public static let unknownAttributes: UInt16 = 0x000A
    public static let realm: UInt16 = 0x0014
    public static let nonce: UInt16 = 0x0015
    public static let messageIntegritySHA256: UInt16 = 0x001C
    public static let xorMappedAddress: UInt16 = 0x0020
    public static let priority: UInt16 = 0x0024
    public static let useCandidate: UInt16 = 0x0025
    public static let software: UInt16 = 0x8022
    public static let fingerprint: UInt16 = 0x8028
    public static let iceControlled: UInt16 = 0x8029
    public static let iceControlling: UInt16 = 0x802A
}

/// The 96-bit transaction id, held as two integers so it compares and hashes cheaply.
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt32

    public init(high: UInt64, low: UInt32) {
        self.high = high
        self.low = low
    }

    /// Reads 12 bytes; the caller has checked the length.
    init(unchecked bytes: UnsafeRawBufferPointer, at offset: Int) {
        high = UInt64(bytes.loadBigEndianUInt32(at: offset)) << 32 | UInt64(bytes.loadBigEndianUInt32(at: offset + 4))
        low = bytes.loadBigEndianUInt32(at: offset + 8)
    }

    public static func random() -> STUNTransactionID {
        var generator = SystemRandomNumberGenerator()
        return STUNTransactionID(high: generator.next(), low: generator.next())
    }

    public func write(into writer: inout ByteWriter) {
        writer.write(high)
        writer.write(low)
    }

    public var description: String {
        let h = String(high, radix: 16), l = String(low, radix: 16)
        return String(repeating: "0", count: 16 - h.count) + h + String(repeating: "0", count: 8 - l.count) + l
    }
}

/// Why bytes were not accepted as a STUN message.
public enum STUNParseError: Error, Equatable, Sendable {
    case tooShort
    case notSTUN
    case badLength
    case truncatedAttribute
    case badAttributeValue(UInt16)
}

/// One attribute, its value aliasing the message bytes.
public struct STUNAttribute {
    public let type: UInt16
    public let value: UnsafeRawBufferPointer
    /// Offset of the attribute header from the start of the message.
    public let offset: Int
}

/// Walks the attributes of a message, bounds-checked, honouring 4-byte padding.
/// Stops at the first attribute that does not fit.
public struct STUNAttributeIterator: IteratorProtocol, Sequence {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        self.offset = STUNMessage.headerSize
    }

    public mutating func next() -> STUNAttribute? {
        guard offset + 4 <= bytes.count else { return nil }
        let type = bytes.loadBigEndianUInt16(at: offset)
        let length = Int(bytes.loadBigEndianUInt16(at: offset + 2))
        let valueStart = offset + 4
        guard valueStart + length <= bytes.count else { offset = bytes.count; return nil }
        let attribute = STUNAttribute(type: type,
                                      value: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueStart + length]),
                                      offset: offset)
        offset = Swift.min(bytes.count, valueStart + ((length + 3) & ~3))
        return attribute
    }
}
