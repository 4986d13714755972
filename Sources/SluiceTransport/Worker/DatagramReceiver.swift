import SluiceWire

/// Anything the worker hands datagrams (and TCP frames) to: a WebRTC transport.
public protocol DatagramReceiver: AnyObject {
    func receive(_ datagram: UnsafeMutableRawBufferPointer, from path: MediaPath, now: UInt64)
    /// A TCP connection bound to this receiver closed; nothing more arrives or leaves on `path`.
    func pathDidClose(_ path: MediaPath)
}
