/// Why a call method was refused; signaling spells each as docs/protocol.md section 5 does.
public enum CallRefusal: Error, Equatable, Sendable {
    /// 1016: the session has no user.
    case identityRequired
    /// -32602: `to` is the caller's own user.
    case callingSelf
    /// 1014: no such call, or the session's user is no party of it, or it ended long ago.
    case unknownCall
    /// 1015, with the reason the message gives.
    case wrongState(String)
    /// 1008: the session made `CallSettings.perMinute` calls in the last minute.
    case rateLimited
}
