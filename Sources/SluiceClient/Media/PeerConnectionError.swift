#if canImport(SluiceTransport)
public enum PeerConnectionError: Error, Equatable, Sendable, CustomStringConvertible {
    case answer(String)
    /// The answer named no candidate this client may send to (see `Configuration.loopbackOnly`).
    case noUsableCandidate
    case transport(String)
    /// ICE or DTLS failed; the info is a "Failed by ..." string.
    case failed(String)
    case closed
    case timedOut

    public var description: String {
        switch self {
        case .answer(let message): return message
        case .noUsableCandidate: return "the answer has no usable candidate"
        case .transport(let message): return "transport: \(message)"
        case .failed(let info): return info
        case .closed: return "closed"
        case .timedOut: return "timed out"
        }
    }
}
#endif
