import CShims
import Glibc
import SluiceWire

// The worker's datagram I/O (UDP; ICE-TCP is MediaWorker+TCP.swift): its sockets (opened
// and closed), the receive batches and their dispatch by tuple or ICE username, and the send
// batches.

/// The worker's UDP sockets and its receive side: `recvmmsg` batches, each datagram
/// dispatched to its transport by tuple or, for a STUN binding request, by ICE username.
extension MediaWorker {
    /// A non-blocking UDP socket bound to `bindAddress` (port 0: any free port).
    static func makeSocket(bindAddress: SocketAddress) throws(WorkerError) -> WorkerSocket {
        let family = bindAddress.family == .ipv4 ? AF_INET : AF_INET6
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socket("socket: \(String(cString: strerror(errno)))") }
        var size: Int32 = 4 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        bindAddress.write(to: &storage)
        let length = socklen_t(bindAddress.family == .ipv4 ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw .socket("bind \(bindAddress): \(message)")
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        return WorkerSocket(descriptor: fd, localAddress: SocketAddress(&actual) ?? bindAddress)
    }

    /// Opens another UDP socket on this worker (any thread). Its datagrams go only to
    /// transports registered on it, so connections to one remote address can share the worker.
    public func openSocket(bindAddress: SocketAddress) throws(WorkerError) -> WorkerSocket {
        let socket = try Self.makeSocket(bindAddress: bindAddress)
        extraSockets.withLock { _ = $0.insert(socket.descriptor) }
        _ = sluice_epoll_add(epollFD, socket.descriptor, UInt64(socket.descriptor))
        return socket
    }

    /// Sends what is queued, forgets every route through `socket` and closes it (worker
    /// thread). The primary socket stays open until the worker goes.
    public func closeSocket(_ socket: WorkerSocket) {
        let fd = socket.descriptor
        guard extraSockets.withLock({ $0.remove(fd) }) != nil else { return }
        flushSends()
        transportsByUfrag = transportsByUfrag.filter { $0.value.socket != fd }
        transportsByTuple.pointee = transportsByTuple.pointee.filter { $0.key.socket != fd }
        _ = sluice_epoll_del(epollFD, fd)
        close(fd)
        closedThisTurn.append(fd)
    }

    func receiveBatches(socket: Int32) {
        // Reads until the socket is empty before sending: what arrived while the first batch
        // was handled (the rest of a frame) then leaves in the same send batch, so the
        // packets of a frame to one player travel as one UDP GSO message. The frame's last
        // packet, which the player waits for, leaves no later than before. Bounded, so that
        // the inbox and timers get their turn under load.
        var batches = 0
        while batches < Self.receiveBatchesPerSend {
            let received = sluice_recvmmsg(socket, recvBatch, UInt32(Self.batchSize))
            guard received > 0 else { break }
            datagramsIn.add(UInt64(received), ordering: .relaxed)
            let now = MonotonicClock.nowMicros()
            for slot in 0..<Int(received) {
                let length = sluice_mmsg_len(recvBatch, UInt32(slot))
                guard let source = SocketAddress(recvAddresses + slot) else { continue }
                let bytes = UnsafeMutableRawBufferPointer(start: pool.pointer(recvBuffers[slot]), count: length)
                dispatch(bytes, from: DatagramTuple(socket: socket, remote: source), now: now)
            }
            receiveTimes[batches] = now
            receiveCounts[batches] = Int(received)
            batches += 1
        }
        guard batches > 0 else { return }
        flushSends()
        let sent = MonotonicClock.nowMicros()
        for i in 0..<batches {
            forwardDelay.record(micros: sent > receiveTimes[i] ? sent - receiveTimes[i] : 0, datagrams: receiveCounts[i])
        }
    }

    /// RFC 7983 demultiplexing: STUN goes by ICE username, everything else by tuple (local
    /// socket and remote address).
    @inline(__always)
    func dispatch(_ bytes: UnsafeMutableRawBufferPointer, from tuple: DatagramTuple, now: UInt64) {
        guard bytes.count > 0 else { return }
        if PacketClass.of(firstByte: bytes[0]) == .stun {
            if let receiver = transportsByTuple.pointee[tuple] {
                receiver.receive(bytes, from: .udp(socket: tuple.socket, remote: tuple.remote), now: now)
            } else if let ufrag = ICELiteServer.localUfrag(inBindingRequest: UnsafeRawBufferPointer(bytes)),
                      let key = ICEUfragKey(ufrag), let entry = transportsByUfrag[key], entry.socket == tuple.socket {
                entry.receiver.receive(bytes, from: .udp(socket: tuple.socket, remote: tuple.remote), now: now)
            } else {
                datagramsDropped.add(1, ordering: .relaxed)
            }
            return
        }
        guard let receiver = transportsByTuple.pointee[tuple] else {
            datagramsDropped.add(1, ordering: .relaxed)
            return
        }
        receiver.receive(bytes, from: .udp(socket: tuple.socket, remote: tuple.remote), now: now)
    }
}

/// The worker's send queue: what transports send during a loop turn waits here, and goes out
/// at the end of the receive batch in one `sendmmsg` per socket (ICE-TCP: `flushTCP`).
extension MediaWorker {
    /// Whether the UDP send batch goes out as UDP GSO messages (`rtc.gso`): on unless set off
    /// or the kernel refused it. Set before `start`.
    public var segmentation: Bool {
        get { sluice_mmsg_segmentation(sendBatch) != 0 }
        set { sluice_mmsg_set_segmentation(sendBatch, newValue ? 1 : 0) }
    }

    /// Queues pool buffer `buffer` (its first `length` bytes) on `path`: in the UDP batch, or
    /// framed into the TCP connection's queue (copied, so the buffer goes back at once). The
    /// worker owns the buffer from here and returns it to the pool after sending.
    @inline(__always)
    public func queueSend(buffer: Int32, length: Int, path: MediaPath) {
        guard path.kind == .udp else {
            queueTCPSend(buffer: buffer, length: length, path: path)
            return
        }
        if sendCount == Self.sendQueueCapacity { flushSends() }
        let slot = sendCount
        sendBuffers[slot] = buffer
        sendSockets[slot] = path.local
        path.remote.write(to: sendAddresses + slot)
        sluice_mmsg_set(sendBatch, UInt32(slot), pool.pointer(buffer), length, sendAddresses + slot)
        sendCount += 1
    }

    /// Copies `bytes` into a pool buffer and queues it. For control-rate packets (STUN, DTLS).
    public func queueSend(copying bytes: UnsafeRawBufferPointer, path: MediaPath) {
        guard bytes.count <= PacketBufferPool.bufferSize, let buffer = pool.take() else {
            datagramsDropped.add(1, ordering: .relaxed)
            return
        }
        pool.pointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        queueSend(buffer: buffer, length: bytes.count, path: path)
    }

    /// Writes a line when the kernel refused UDP GSO messages since the last check (they went
    /// out one datagram at a time, so nothing was lost). Called once a second.
    func reportRefusedSegmentation(now: UInt64) {
        let refused = UInt64(sluice_mmsg_segmentation_refused(sendBatch))
        guard refused > segmentationRefusalsReported else { return }
        let count = refused - segmentationRefusalsReported
        segmentationRefusalsReported = refused
        writeLog("the kernel refused \(count) UDP GSO message(s); their datagrams went one by one"
                 + (segmentation ? " (a path MTU below the segment size)" : "; GSO is off for this worker"), now: now)
    }

    func flushSends() {
        // One sendmmsg per run of datagrams leaving by the same socket (a server has one), in
        // which datagrams to one address go together as UDP GSO messages (segmented_send.c).
        var start = 0
        var sent = 0
        var messages = 0
        while start < sendCount {
            let socket = sendSockets[start]
            var end = start + 1
            while end < sendCount && sendSockets[end] == socket { end += 1 }
            var dropped: UInt32 = 0
            var runMessages: UInt32 = 0
            sent += Int(sluice_sendmmsg_segmented(socket, sendBatch, UInt32(start), UInt32(end - start),
                                                  &dropped, &runMessages))
            messages += Int(runMessages)
            if dropped > 0 { datagramsDropped.add(UInt64(dropped), ordering: .relaxed) }
            start = end
        }
        if sent > 0 {
            datagramsOut.add(UInt64(sent), ordering: .relaxed)
            sendMessages.add(UInt64(messages), ordering: .relaxed)
        }
        for i in 0..<sendCount { pool.give(sendBuffers[i]) }
        sendCount = 0
        if !tcp.flushList.isEmpty { flushTCP() }
    }
}
