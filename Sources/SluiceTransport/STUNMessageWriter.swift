import SluiceWire

/// Writes one STUN message into a caller buffer: header, attributes, then optionally
/// MESSAGE-INTEGRITY and FINGERPRINT, which must come last and in that order.
/// Any overflow makes `finish()` return nil; nothing is allocated.
public struct STUNMessageWriter {
    private var writer: ByteWriter

    public init(into buffer: UnsafeMutableRawBufferPointer, type: STUNMessageType, transactionID: STUNTransactionID) {
        writer = ByteWriter(buffer)
        writer.write(type.rawValue)
        writer.write(UInt16(0))
        writer.write(STUNMessage.magicCookie)
        transactionID.write(into: &writer)
    }

    /// Bytes written so far, or nil after an overflow.
    public var length: Int? { writer.overflowed ? nil : writer.offset }

    public mutating func appendAttribute(type: UInt16, value: UnsafeRawBufferPointer) {
        guard value.count <= 0xFFFF else { return overflow() }
        writer.write(type)
        writer.write(UInt16(value.count))
        writer.write(bytes: value)
        writer.write(zeros: (4 - value.count & 3) & 3)
    }

    public mutating func appendAttribute(type: UInt16, value: UInt32) {
        writer.write(type)
        writer.write(UInt16(4))
        writer.write(value)
    }

    public mutating func appendAttribute(type: UInt16, value: UInt64) {
        writer.write(type)
        writer.write(UInt16(8))
        writer.write(value)
    }

    public mutating func appendFlag(type: UInt16) {
        writer.write(type)
        writer.write(UInt16(0))
    }

    public mutating func appendXORMappedAddress(_ address: SocketAddress, transactionID: STUNTransactionID) {
        let port = address.port ^ UInt16(STUNMessage.magicCookie >> 16)
        switch address.family {
        case .ipv4:
            writer.write(STUNAttributeType.xorMappedAddress)
            writer.write(UInt16(8))
            writer.write(UInt16(0x0001))
            writer.write(port)
            writer.write(UInt32(truncatingIfNeeded: address.high) ^ STUNMessage.magicCookie)
        case .ipv6:
            writer.write(STUNAttributeType.xorMappedAddress)
            writer.write(UInt16(20))
            writer.write(UInt16(0x0002))
            writer.write(port)
            writer.write(address.high ^ (UInt64(STUNMessage.magicCookie) << 32 | transactionID.high >> 32))
            writer.write(address.low ^ (transactionID.high << 32 | UInt64(transactionID.low)))
        }
    }

    /// ERROR-CODE with its reason phrase (RFC 8489 section 14.8).
    public mutating func appendErrorCode(_ code: Int, reason: StaticString) {
        let reasonBytes = UnsafeRawBufferPointer(start: reason.utf8Start, count: reason.utf8CodeUnitCount)
        let value = 4 + reasonBytes.count
        guard (300...699).contains(code), value <= 0xFFFF else { return overflow() }
        writer.write(STUNAttributeType.errorCode)
        writer.write(UInt16(value))
        writer.write(UInt16(0))
        writer.write(UInt8(code / 100))
        writer.write(UInt8(code % 100))
        writer.write(bytes: reasonBytes)
        writer.write(zeros: (4 - value & 3) & 3)
    }

    /// MESSAGE-INTEGRITY over everything written so far, with the length field set to count it.
    public mutating func appendMessageIntegrity(key: STUNIntegrityKey) {
        let start = writer.offset
        setLengthField(start + 4 + STUNIntegrityKey.hmacSize)
        writer.write(STUNAttributeType.messageIntegrity)
        writer.write(UInt16(STUNIntegrityKey.hmacSize))
        let macOffset = writer.offset
        writer.write(zeros: STUNIntegrityKey.hmacSize)
        guard !writer.overflowed, let base = writer.base.baseAddress else { return }
        guard key.authenticate(UnsafeRawBufferPointer(start: base, count: start), into: base + macOffset)
        else { return overflow() }
    }

    /// FINGERPRINT over everything written so far; must be the last attribute.
    public mutating func appendFingerprint() {
        let start = writer.offset
        setLengthField(start + 8)
        guard !writer.overflowed, writer.remaining >= 8 else { return overflow() }
        let crc = STUNMessage.fingerprint(of: UnsafeRawBufferPointer(writer.base), upTo: start)
        writer.write(STUNAttributeType.fingerprint)
        writer.write(UInt16(4))
        writer.write(crc)
    }

    /// Sets the final length field and returns the message size, or nil on overflow.
    public mutating func finish() -> Int? {
        setLengthField(writer.offset)
        return length
    }

    private mutating func setLengthField(_ messageEnd: Int) {
        guard !writer.overflowed, messageEnd - STUNMessage.headerSize <= 0xFFFF else { return overflow() }
        writer.patch(UInt16(messageEnd - STUNMessage.headerSize), at: 2)
    }

    private mutating func overflow() {
        writer.write(zeros: writer.remaining + 1)
    }
}

extension STUNMessageWriter {
    /// A Binding success response carrying the source address the request came from,
    /// authenticated with the responder's short-term key (RFC 8445 section 7.3.1).
    public static func bindingSuccessResponse(into buffer: UnsafeMutableRawBufferPointer,
                                              transactionID: STUNTransactionID,
                                              mappedAddress: SocketAddress,
                                              key: STUNIntegrityKey?) -> Int? {
        var message = STUNMessageWriter(into: buffer, type: .bindingSuccessResponse, transactionID: transactionID)
        message.appendXORMappedAddress(mappedAddress, transactionID: transactionID)
        if let key { message.appendMessageIntegrity(key: key) }
        message.appendFingerprint()
        return message.finish()
    }

    /// A Binding error response (400 Bad Request, 401 Unauthorized, 487 Role Conflict...).
    /// Authenticated when `key` is given, which RFC 8445 requires for 487.
    public static func bindingErrorResponse(into buffer: UnsafeMutableRawBufferPointer,
                                            transactionID: STUNTransactionID,
                                            code: Int, reason: StaticString,
                                            key: STUNIntegrityKey?) -> Int? {
        var message = STUNMessageWriter(into: buffer, type: .bindingErrorResponse, transactionID: transactionID)
        message.appendErrorCode(code, reason: reason)
        if let key { message.appendMessageIntegrity(key: key) }
        message.appendFingerprint()
        return message.finish()
    }

    /// A Binding request of a controlling agent (RFC 8445 section 7.2.2): USERNAME
    /// "<remote ufrag>:<local ufrag>", PRIORITY, ICE-CONTROLLING, optionally USE-CANDIDATE,
    /// then MESSAGE-INTEGRITY with the remote password and FINGERPRINT.
    public static func bindingRequest(into buffer: UnsafeMutableRawBufferPointer,
                                      transactionID: STUNTransactionID,
                                      username: UnsafeRawBufferPointer,
                                      priority: UInt32,
                                      tieBreaker: UInt64,
                                      useCandidate: Bool,
                                      key: STUNIntegrityKey) -> Int? {
        var message = STUNMessageWriter(into: buffer, type: .bindingRequest, transactionID: transactionID)
        message.appendAttribute(type: STUNAttributeType.username, value: username)
        message.appendAttribute(type: STUNAttributeType.priority, value: priority)
        message.appendAttribute(type: STUNAttributeType.iceControlling, value: tieBreaker)
        if useCandidate { message.appendFlag(type: STUNAttributeType.useCandidate) }
        message.appendMessageIntegrity(key: key)
        message.appendFingerprint()
        return message.finish()
    }
}
