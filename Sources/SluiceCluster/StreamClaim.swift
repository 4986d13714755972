/// The answer to claiming a stream name cluster-wide.
public enum StreamClaim: Sendable, Equatable {
    /// This node owns the name now (or already did).
    case claimed
    /// Another node originates it: the name-in-use rule (1003) holds cluster-wide.
    case inUse(by: String)
}
