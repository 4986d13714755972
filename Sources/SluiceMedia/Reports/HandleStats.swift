import SluiceVocabulary

public struct HandleStats: Sendable {
    public var handle: StreamHandle
    public var stream: String
    public var role: StreamRole
    public var audio: KindStats?
    public var video: KindStats?
    /// From what the peer reports (play) or what the server receives (publish); nil until known.
    public var connectionQuality: ConnectionQuality?
    /// The ICE path media takes: "udp" or "tcp" (ICE-TCP); nil until ICE selected one.
    public var transportProtocol: String?
    /// ICE-TCP: packets dropped because the connection's send queue was full (a slow reader).
    public var tcpSendDroppedPackets: UInt64 = 0
    /// The media worker that serves the handle (admin API only; set by the control plane).
    public var worker: Int?

    public init(handle: StreamHandle, stream: String, role: StreamRole, audio: KindStats?, video: KindStats?) {
        self.handle = handle
        self.stream = stream
        self.role = role
        self.audio = audio
        self.video = video
    }
}
