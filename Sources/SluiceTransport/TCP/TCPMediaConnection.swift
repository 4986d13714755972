import CShims
import Glibc
import SluiceWire

/// One TCP media connection of a worker (ICE-TCP, RFC 6544): accepted on the worker's
/// listener (a client's active candidate reaching our passive one), or opened by a client-role
/// transport. The connection is the ICE tuple: the first authenticated binding request on it
/// binds it to its transport, and every frame after that goes to that transport.
///
/// Everything it holds is allocated once, when it opens: the partial-frame storage of its
/// decoder and its bounded send queue. Worker thread only.
final class TCPMediaConnection {
    let descriptor: Int32
    let path: MediaPath
    let openedMicros: UInt64
    var decoder: RFC4571FrameDecoder
    /// Where a frame split across reads is assembled.
    let partial: UnsafeMutableRawBufferPointer
    let sendQueue: TCPSendQueue
    /// The transport this connection carries; nil until a binding request authenticated.
    var receiver: DatagramReceiver?
    /// True for a connection this side opened, until the connect completes.
    var isConnecting: Bool
    /// In the worker's list of connections to write at the end of the turn.
    var isFlushPending = false
    /// EPOLLOUT is armed (the socket was full).
    var isWaitingForRoom = false
    private(set) var isClosed = false

    init(descriptor: Int32, path: MediaPath, now: UInt64, maxFrameLength: Int, sendQueueBytes: Int,
         isConnecting: Bool) {
        self.descriptor = descriptor
        self.path = path
        openedMicros = now
        decoder = RFC4571FrameDecoder(maxFrameLength: maxFrameLength)
        partial = .allocate(byteCount: maxFrameLength, alignment: 16)
        sendQueue = TCPSendQueue(capacity: sendQueueBytes)
        self.isConnecting = isConnecting
    }

    deinit {
        partial.deallocate()
        if !isClosed { Glibc.close(descriptor) }
    }

    /// Closes the socket; the object lives on while a read loop still holds it.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        receiver = nil
        sendQueue.removeAll()
        Glibc.close(descriptor)
    }

    /// Writes what is queued, without blocking. False when the connection failed.
    func flush() -> Bool {
        guard !isClosed, !isConnecting else { return !isClosed }
        let fd = descriptor
        while !sendQueue.isEmpty {
            let written = sendQueue.drain { a, b in
                Int(sluice_tcp_write2(fd, a.baseAddress, a.count, b.baseAddress, b.count))
            }
            if written < 0 { return false }
            if written == 0 { break }
        }
        return true
    }
}
