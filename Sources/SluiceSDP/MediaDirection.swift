/// Media direction from the offerer's or answerer's point of view (RFC 8866 6.7).
public enum MediaDirection: String, Sendable, Hashable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    /// The direction the other side states for the same stream.
    public var reversed: MediaDirection {
        switch self {
        case .sendonly: return .recvonly
        case .recvonly: return .sendonly
        case .sendrecv, .inactive: return self
        }
    }

    public var sends: Bool { self == .sendrecv || self == .sendonly }
    public var receives: Bool { self == .sendrecv || self == .recvonly }
}
