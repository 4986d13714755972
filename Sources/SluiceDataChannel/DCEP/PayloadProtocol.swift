/// The SCTP payload protocol identifiers of WebRTC (RFC 8831 section 8): what a message on a
/// data channel holds. An empty message travels as one byte with an "empty" PPID, since SCTP
/// cannot carry zero bytes.
public enum PayloadProtocol: UInt32, Sendable {
    case dcep = 50
    case string = 51
    case binary = 53
    case emptyString = 56
    case emptyBinary = 57

    public var isBinary: Bool { self == .binary || self == .emptyBinary }
    public var isEmpty: Bool { self == .emptyString || self == .emptyBinary }

    /// The PPID to send a message of `count` bytes with.
    public static func message(binary: Bool, count: Int) -> PayloadProtocol {
        switch (binary, count == 0) {
        case (true, false): return .binary
        case (true, true): return .emptyBinary
        case (false, false): return .string
        case (false, true): return .emptyString
        }
    }
}
