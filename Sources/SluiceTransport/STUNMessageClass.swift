/// The class bits of a STUN message type (RFC 8489 section 5).
public enum STUNMessageClass: UInt8, Sendable {
    case request = 0
    case indication = 1
    case successResponse = 2
    case errorResponse = 3
}
