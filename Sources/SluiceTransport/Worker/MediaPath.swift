import SluiceWire

/// One way between a transport and its peer, as ICE tuples and sends name it: a UDP socket of
/// the worker and a remote address, or a TCP media connection (RFC 4571 framed). A plain
/// value, so a transport's send reaches the UDP batch or the connection's queue through one
/// switch in the worker, with no existential and no allocation per packet.
public struct MediaPath: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: UInt8, Sendable { case udp, tcp }

    public let kind: Kind
    /// UDP: the worker socket's descriptor. TCP: the connection's slot in the worker's table.
    public let local: Int32
    /// TCP: the connection's serial number, never reused on a worker, so a path to a closed
    /// connection never matches a later one in the same slot. UDP: 0.
    public let serial: UInt32
    /// The peer: the datagrams' source, or the connection's other end.
    public let remote: SocketAddress

    public static func udp(socket: Int32, remote: SocketAddress) -> MediaPath {
        MediaPath(kind: .udp, local: socket, serial: 0, remote: remote)
    }

    static func tcp(slot: Int32, serial: UInt32, remote: SocketAddress) -> MediaPath {
        MediaPath(kind: .tcp, local: slot, serial: serial, remote: remote)
    }

    public var isTCP: Bool { kind == .tcp }

    public var description: String { "\(kind == .tcp ? "tcp" : "udp") \(remote)" }
}
