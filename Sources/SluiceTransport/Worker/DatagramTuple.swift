import SluiceWire

/// A path as the worker demultiplexes it: the local socket a datagram came in on and its source.
struct DatagramTuple: Hashable {
    let socket: Int32
    let remote: SocketAddress
}
