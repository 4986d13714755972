/// Why bytes were not accepted as a STUN message.
public enum STUNParseError: Error, Equatable, Sendable {
    case tooShort
    case notSTUN
    case badLength
    case truncatedAttribute
    case badAttributeValue(UInt16)
}
