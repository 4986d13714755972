/// The bounded send queue of one TCP media connection: a fixed ring of bytes, allocated once
/// with the connection, holding RFC 4571 frames (16-bit length, then the packet) that the
/// socket has not taken yet.
///
/// A slow reader must cost only itself (docs/design.md "More transports"): the worker never blocks
/// on a socket and the queue never grows. A frame goes in whole or not at all, so the stream
/// never carries a torn frame; when there is no room the packet is dropped and counted. The
/// socket may take any prefix of the queued bytes: the rest stays queued, in order.
///
/// When the queue empties its positions go back to the start, so a reader that keeps up keeps
/// touching only the ring's first pages.
public final class TCPSendQueue {
    public let capacity: Int
    private let storage: UnsafeMutableRawPointer
    /// Offset of the first unsent byte.
    private var head = 0
    public private(set) var queuedBytes = 0
    /// Packets refused because the ring had no room for their frame.
    public private(set) var droppedPackets: UInt64 = 0
    public private(set) var queuedPackets: UInt64 = 0

    public init(capacity: Int) {
        precondition(capacity >= 2 + 1)
        self.capacity = capacity
        storage = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    public var isEmpty: Bool { queuedBytes == 0 }
    public var freeBytes: Int { capacity - queuedBytes }

    /// Queues `packet` as one frame. False (and a counted drop) when the frame does not fit,
    /// or when the packet is empty or longer than a frame can say (65,535 bytes).
    @discardableResult
    public func enqueue(_ packet: UnsafeRawBufferPointer) -> Bool {
        let length = packet.count
        guard length > 0, length <= 65535, length + 2 <= freeBytes else {
            droppedPackets &+= 1
            return false
        }
        var header = UInt16(length).bigEndian
        withUnsafeBytes(of: &header) { append($0) }
        append(packet)
        queuedPackets &+= 1
        return true
    }

    private func append(_ bytes: UnsafeRawBufferPointer) {
        var tail = head + queuedBytes
        if tail >= capacity { tail -= capacity }
        let first = min(bytes.count, capacity - tail)
        (storage + tail).copyMemory(from: bytes.baseAddress!, byteCount: first)
        if first < bytes.count {
            storage.copyMemory(from: bytes.baseAddress! + first, byteCount: bytes.count - first)
        }
        queuedBytes += bytes.count
    }

    /// Hands the queued bytes, in order, as at most two pieces (the ring's end, then its start)
    /// to `write`, which returns how many bytes the socket took (0 when it is full, -1 on an
    /// error); those leave the queue. Returns `write`'s result (0 when there was nothing).
    public func drain(_ write: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Int) -> Int {
        guard queuedBytes > 0 else { return 0 }
        let first = min(queuedBytes, capacity - head)
        let a = UnsafeRawBufferPointer(start: storage + head, count: first)
        let b = UnsafeRawBufferPointer(start: storage, count: queuedBytes - first)
        let written = write(a, b)
        guard written > 0 else { return written }
        let taken = min(written, queuedBytes)
        queuedBytes -= taken
        head += taken
        if head >= capacity { head -= capacity }
        if queuedBytes == 0 { head = 0 }
        return written
    }

    /// Forgets what is queued (the connection is closing).
    public func removeAll() {
        head = 0
        queuedBytes = 0
    }
}
