/// Which way media flows for the client of a handle (docs/protocol.md `role`).
public enum StreamRole: String, Sendable, Hashable {
    /// The client sends; the server answers recvonly.
    case publish
    /// The client receives; the server answers sendonly.
    case play
}
