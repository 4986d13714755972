import SluiceWire

/// One UDP socket of a worker: the primary one, or one from `openSocket`.
public struct WorkerSocket: Hashable, Sendable {
    public let descriptor: Int32
    public let localAddress: SocketAddress
}
