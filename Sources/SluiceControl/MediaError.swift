/// Application errors of docs/protocol.md section 5 that the engine can raise.
public enum MediaError: Error, Equatable, Sendable {
    case streamNameInUse
    case streamNotFound
    case noCommonCodecs
    /// `message` names the offending SDP line.
    case badSDP(String)
    case unknownHandle
    case limitReached(String)
    case constraintsExceedLimits
    case wrongRole
    /// The publisher tried to lift a server-side (moderator) mute.
    case restrictedAccess
    /// A cluster node cannot reach the cluster's state (Redis) to find a stream on another node.
    case clusterUnavailable
}
