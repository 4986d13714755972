import CShims
import Glibc
import SluiceWire
import SluiceLog

/// ICE-TCP on a worker (RFC 6544 passive candidates, RFC 4571 framing): the listener, its
/// connections' reads and writes, and their limits. The connections join the worker's epoll
/// loop next to its UDP sockets; their frames take the UDP datagrams' receive path.
///
/// Bad input on a connection (an oversize frame, data that is not STUN before ICE, no
/// authenticated check in time, one connection over the limit) closes that connection alone,
/// with one log line (at most `WorkerLogLimiter.maxLines` per 10 s).
extension MediaWorker {
    /// Bytes taken from a connection per read.
    static let tcpReadBufferSize = 64 * 1024
    /// Reads per connection per loop turn, so one busy connection cannot starve the others.
    static let tcpReadsPerEvent = 4
    /// Accepts per listener event.
    static let tcpAcceptsPerEvent = 32
    // The SLUICE_EPOLL_* masks of CShims.h.
    static let epollIn: UInt32 = 1
    static let epollOut: UInt32 = 2
    static let epollHangUp: UInt32 = 4

    static func makeTCPListener(bindAddress: SocketAddress) throws(WorkerError) -> (Int32, SocketAddress) {
        var storage = sockaddr_storage()
        bindAddress.write(to: &storage)
        let fd = sluice_tcp_listen(&storage, 128)
        guard fd >= 0 else { throw .socket("listen tcp \(bindAddress): \(String(cString: strerror(errno)))") }
        var actual = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, SocketAddress(&actual) ?? bindAddress)
    }

    static func makeTCPReadBuffer() -> UnsafeMutableRawBufferPointer {
        .allocate(byteCount: tcpReadBufferSize, alignment: 16)
    }

    // MARK: Counters (any thread)

    /// TCP media connections open now.
    public var tcpConnectionsOpen: Int { tcp.open.load(ordering: .relaxed) }
    public var tcpConnectionsAccepted: UInt64 { tcp.accepted.load(ordering: .relaxed) }
    public var tcpConnectionsRefused: UInt64 { tcp.refused.load(ordering: .relaxed) }
    public var tcpConnectionsClosedForBadInput: UInt64 { tcp.closedForBadInput.load(ordering: .relaxed) }
    public var tcpFramesReceived: UInt64 { tcp.framesReceived.load(ordering: .relaxed) }
    public var tcpFramesSent: UInt64 { tcp.framesSent.load(ordering: .relaxed) }
    /// Packets dropped because a TCP reader was too slow (its connection's queue was full).
    public var tcpSendDroppedPackets: UInt64 { tcp.sendDropped.load(ordering: .relaxed) }

    /// Packets dropped on one connection because its send queue was full (worker thread).
    public func tcpSendDroppedPackets(on path: MediaPath) -> UInt64 {
        tcp.connection(for: path)?.sendQueue.droppedPackets ?? 0
    }

    // MARK: Client side (worker thread)

    /// Opens a TCP media connection to `remote` (a server's passive candidate), for a
    /// client-role transport, which binds itself to the returned path. Worker thread.
    public func openTCPConnection(to remote: SocketAddress) throws(WorkerError) -> MediaPath {
        var storage = sockaddr_storage()
        remote.write(to: &storage)
        var inProgress: Int32 = 0
        let fd = sluice_tcp_connect(&storage, &inProgress)
        guard fd >= 0 else { throw .socket("connect tcp \(remote): \(String(cString: strerror(errno)))") }
        if tcpReadBuffer == nil { tcpReadBuffer = Self.makeTCPReadBuffer() }
        guard let connection = addTCPConnection(descriptor: fd, remote: remote, connecting: inProgress != 0) else {
            close(fd)
            throw .socket("connect tcp \(remote): the worker has \(tcp.options.maxConnections) TCP connections")
        }
        return connection.path
    }

    // MARK: Events (worker thread)

    func handleTCPEvent(tag: UInt64, flags: UInt32) {
        let now = MonotonicClock.nowMicros()
        if tag == Self.tcpListenerTag {
            acceptTCPConnections(now: now)
            return
        }
        let slot = Int32(truncatingIfNeeded: tag & 0xFFFF_FFFF)
        guard slot >= 0, Int(slot) < tcp.slots.count, let connection = tcp.slots[Int(slot)] else { return }
        if flags & Self.epollOut != 0 {
            writable(connection)
            if connection.isClosed { return }
        }
        if flags & (Self.epollIn | Self.epollHangUp) != 0 {
            read(connection, now: now)
        }
    }

    private func acceptTCPConnections(now: UInt64) {
        for _ in 0..<Self.tcpAcceptsPerEvent {
            var peer = sockaddr_storage()
            let fd = sluice_tcp_accept(tcpListenerFD, &peer)
            if fd < 0 {
                let error = errno
                if error == EAGAIN || error == EWOULDBLOCK { return }
                if error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM {
                    // Level-triggered: a listener that cannot accept stays ready and would
                    // spin the loop. Step back for a second (the pending connection waits).
                    tcp.refused.add(1, ordering: .relaxed)
                    _ = sluice_epoll_del(epollFD, tcpListenerFD)
                    tcpAcceptPausedUntil = now + 1_000_000
                    writeLog("tcp: accept failed: \(String(cString: strerror(error))) (raise the open-file limit, ulimit -n); "
                             + "accepting again in 1 s", now: now)
                    return
                }
                continue  // ECONNABORTED and the like: that one connection is gone.
            }
            guard let remote = SocketAddress(&peer) else {
                close(fd)
                continue
            }
            tcp.accepted.add(1, ordering: .relaxed)
            guard addTCPConnection(descriptor: fd, remote: remote, connecting: false) != nil else {
                // Counted and logged before the close, which the peer sees at once.
                tcp.refused.add(1, ordering: .relaxed)
                writeLog("tcp \(remote): refused: the worker has \(tcp.options.maxConnections) TCP media connections (the limit)",
                         now: now, remote: remote)
                close(fd)
                continue
            }
        }
    }

    private func addTCPConnection(descriptor fd: Int32, remote: SocketAddress, connecting: Bool) -> TCPMediaConnection? {
        let options = tcp.options
        let now = MonotonicClock.nowMicros()
        guard let connection = tcp.insert({ slot, serial in
            TCPMediaConnection(descriptor: fd, path: .tcp(slot: slot, serial: serial, remote: remote), now: now,
                               maxFrameLength: options.maxFrameLength, sendQueueBytes: options.sendQueueBytes,
                               isConnecting: connecting)
        }) else { return nil }
        sluice_set_send_buffer(fd, Int32(clamping: options.socketSendBufferBytes))
        let events = Self.epollIn | (connecting ? Self.epollOut : 0)
        connection.isWaitingForRoom = connecting
        _ = sluice_epoll_add_events(epollFD, fd, Self.tcpConnectionTag | UInt64(connection.path.local), events)
        return connection
    }

    private func read(_ connection: TCPMediaConnection, now: UInt64) {
        guard let buffer = tcpReadBuffer else { return }
        for _ in 0..<Self.tcpReadsPerEvent {
            let count = Int(sluice_tcp_read(connection.descriptor, buffer.baseAddress, buffer.count))
            if count == -2 { return }
            if count == 0 {
                closeTCPConnection(connection, reason: nil)
                return
            }
            if count < 0 {
                closeTCPConnection(connection, reason: nil)
                return
            }
            let input = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            var offset = 0
            var frames = 0
            decoding: while true {
                switch connection.decoder.nextFrame(in: input, offset: &offset, storage: connection.partial) {
                case .frame(let frame):
                    frames += 1
                    dispatchTCP(frame, on: connection, now: now)
                    if connection.isClosed { break decoding }
                case .needMoreInput:
                    break decoding
                case .frameTooLong(let length):
                    closeTCPConnection(connection, reason: "sent a frame of \(length) bytes (the limit is "
                                       + "\(tcp.options.maxFrameLength))", badInput: true)
                    break decoding
                }
            }
            if frames > 0 { tcp.framesReceived.add(UInt64(frames), ordering: .relaxed) }
            flushSends()
            if connection.isClosed { return }
            let sent = MonotonicClock.nowMicros()
            if frames > 0 { forwardDelay.record(micros: sent > now ? sent - now : 0, datagrams: frames) }
            if count < buffer.count { return }
        }
    }

    /// A frame from a connection: to its transport once bound; before that only a binding
    /// request for a ufrag of this worker's server transports may come (as on UDP).
    @inline(__always)
    private func dispatchTCP(_ frame: UnsafeMutableRawBufferPointer, on connection: TCPMediaConnection, now: UInt64) {
        guard frame.count > 0 else { return }
        if let receiver = connection.receiver {
            receiver.receive(frame, from: connection.path, now: now)
            return
        }
        guard PacketClass.of(firstByte: frame[0]) == .stun else {
            closeTCPConnection(connection, reason: "sent \(frame.count) bytes that are not STUN before an ICE check",
                               badInput: true)
            return
        }
        if let ufrag = ICELiteServer.localUfrag(inBindingRequest: UnsafeRawBufferPointer(frame)),
           let key = ICEUfragKey(ufrag), let entry = transportsByUfrag[key], entry.socket == socketFD {
            entry.receiver.receive(frame, from: connection.path, now: now)
        } else {
            datagramsDropped.add(1, ordering: .relaxed)
        }
    }

    private func writable(_ connection: TCPMediaConnection, now: UInt64 = MonotonicClock.nowMicros()) {
        if connection.isConnecting {
            let error = sluice_socket_error(connection.descriptor)
            guard error == 0 else {
                closeTCPConnection(connection, reason: "connect failed: \(String(cString: strerror(error)))")
                return
            }
            connection.isConnecting = false
        }
        guard connection.flush() else {
            closeTCPConnection(connection, reason: nil)
            return
        }
        updateWriteInterest(connection)
    }

    // MARK: Sending (worker thread)

    /// Frames the packet into its connection's queue, whole or not at all.
    @inline(__always)
    func queueTCPSend(buffer: Int32, length: Int, path: MediaPath) {
        if let connection = tcp.connection(for: path) {
            if connection.sendQueue.enqueue(UnsafeRawBufferPointer(start: pool.pointer(buffer), count: length)) {
                tcp.packetsQueuedSinceFlush &+= 1
                if !connection.isFlushPending {
                    connection.isFlushPending = true
                    tcp.flushList.append(path.local)
                }
            } else {
                tcp.sendDropped.add(1, ordering: .relaxed)
            }
        } else {
            datagramsDropped.add(1, ordering: .relaxed)
        }
        pool.give(buffer)
    }

    /// Writes every connection that has queued bytes, once; a full socket waits for EPOLLOUT.
    func flushTCP() {
        // By index: a close below may reach a transport that queues more.
        var i = 0
        while i < tcp.flushList.count {
            let slot = Int(tcp.flushList[i])
            i += 1
            guard let connection = tcp.slots[slot] else { continue }
            connection.isFlushPending = false
            guard connection.flush() else {
                closeTCPConnection(connection, reason: nil)
                continue
            }
            updateWriteInterest(connection)
        }
        tcp.flushList.removeAll(keepingCapacity: true)
        if tcp.packetsQueuedSinceFlush > 0 {
            tcp.framesSent.add(tcp.packetsQueuedSinceFlush, ordering: .relaxed)
            tcp.packetsQueuedSinceFlush = 0
        }
    }

    private func updateWriteInterest(_ connection: TCPMediaConnection) {
        let wantsRoom = !connection.sendQueue.isEmpty || connection.isConnecting
        guard wantsRoom != connection.isWaitingForRoom else { return }
        connection.isWaitingForRoom = wantsRoom
        let events = Self.epollIn | (wantsRoom ? Self.epollOut : 0)
        _ = sluice_epoll_mod(epollFD, connection.descriptor, Self.tcpConnectionTag | UInt64(connection.path.local), events)
    }

    // MARK: Closing and limits (worker thread)

    /// Closes one connection. `reason` (bad input, a timeout) goes to the log; nil for an
    /// ordinary end. The transport it carried hears of it unless it asked for the close.
    func closeTCPConnection(_ connection: TCPMediaConnection, reason: String?, badInput: Bool = false,
                            notify: Bool = true) {
        guard !connection.isClosed else { return }
        let receiver = connection.receiver
        // Counted and logged before the close, which the peer sees at once.
        if badInput { tcp.closedForBadInput.add(1, ordering: .relaxed) }
        if let reason {
            writeLog("tcp \(connection.path.remote): \(reason); connection closed", now: MonotonicClock.nowMicros(),
                     remote: connection.path.remote)
        }
        _ = sluice_epoll_del(epollFD, connection.descriptor)
        connection.close()
        tcp.remove(connection)
        if notify { receiver?.pathDidClose(connection.path) }
    }

    /// A transport leaves: what its connections still hold is written (a DTLS close_notify),
    /// then they close.
    func closeTCPConnections(of receiver: DatagramReceiver) {
        guard tcp.openCount > 0 else { return }
        for connection in tcp.connections where connection.receiver === receiver {
            _ = connection.flush()
            closeTCPConnection(connection, reason: nil, notify: false)
        }
    }

    func closeAllTCP() {
        for connection in tcp.connections { connection.close() }
        if tcpListenerFD >= 0 { close(tcpListenerFD) }
    }

    /// Every half second: unauthenticated connections past their time, and a paused listener.
    func checkTCPConnections(now: UInt64) {
        if tcpAcceptPausedUntil != 0, now >= tcpAcceptPausedUntil {
            tcpAcceptPausedUntil = 0
            _ = sluice_epoll_add(epollFD, tcpListenerFD, Self.tcpListenerTag)
        }
        guard tcp.openCount > 0 else { return }
        let timeout = tcp.options.unauthenticatedTimeoutMicros
        for connection in tcp.connections where connection.receiver == nil && now > connection.openedMicros + timeout {
            closeTCPConnection(connection, reason: "no authenticated ICE check within \(timeout / 1_000_000) s",
                               badInput: true)
        }
    }

    /// `remote`: the address the line is about, a field of its own in a JSON line.
    func writeLog(_ message: @autoclosure () -> String, now: UInt64, remote: SocketAddress? = nil) {
        guard let log, let line = logLimiter.line("media worker \(index): " + message(), now: now) else { return }
        var fields: [LogField] = remote.map { [.remote("\($0)")] } ?? []
        if line.heldBack > 0 { fields.append(.suppressed(line.heldBack)) }
        log.warn(line.text, fields)
    }
}
