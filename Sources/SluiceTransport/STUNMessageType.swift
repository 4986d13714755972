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
