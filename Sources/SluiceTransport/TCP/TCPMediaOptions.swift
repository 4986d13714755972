/// How a worker's TCP media connections (ICE-TCP) are bounded.
public struct TCPMediaOptions: Sendable, Equatable {
    /// Open connections per worker, accepted and opened together. One more is accepted and
    /// closed at once, with a log line.
    public var maxConnections: Int
    /// Each connection's send queue (`TCPSendQueue`): what a slow reader may hold in the
    /// server beyond the kernel's socket buffer before its packets are dropped. 128 KiB is
    /// about 0.4 s of a 2.5 Mbit/s stream: a key frame fits, a stalled reader soon drops.
    public var sendQueueBytes: Int
    /// SO_SNDBUF of each connection (the kernel doubles it). Bounded rather than autotuned
    /// (up to 4 MB), since media queued in the kernel is late media: with autotuning a slow
    /// reader would build seconds of delay before anything is dropped.
    public var socketSendBufferBytes: Int
    /// A connection on which no binding request authenticated within this time is closed.
    public var unauthenticatedTimeoutMicros: UInt64
    /// Longest frame accepted (RFC 4571 allows 65,535 bytes; a WebRTC packet is a datagram's
    /// size). A longer announced frame closes the connection.
    public var maxFrameLength: Int

    public init(maxConnections: Int = 1024, sendQueueBytes: Int = 128 * 1024,
                socketSendBufferBytes: Int = 128 * 1024, unauthenticatedTimeoutMicros: UInt64 = 5_000_000,
                maxFrameLength: Int = 2048) {
        self.maxConnections = maxConnections
        self.sendQueueBytes = sendQueueBytes
        self.socketSendBufferBytes = socketSendBufferBytes
        self.unauthenticatedTimeoutMicros = unauthenticatedTimeoutMicros
        self.maxFrameLength = maxFrameLength
    }
}
