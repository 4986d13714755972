import CShims
import Glibc
import SluiceWire
import Synchronization
import SluiceLog

/// One media thread: an epoll loop over its UDP sockets and TCP media connections, an inbox
/// for control commands and a periodic tick. Every transport, router and timer of the worker
/// lives on this thread, so the packet path takes no lock (docs/design.md "Threads").
///
/// Packet path (`MediaWorker+UDP.swift`): `recvmmsg` a batch -> demultiplex each datagram
/// (RFC 7983 first byte) to its transport by (socket, source address) -> transports queue
/// what they send -> one `sendmmsg` per socket at the end of the batch.
///
/// ICE-TCP (RFC 6544, `MediaWorker+TCP.swift`): a server worker may also listen on a TCP
/// port. Each accepted connection carries RFC 4571 frames into the same receive path, is
/// bound to its transport by the first authenticated binding request, and sends through its
/// own bounded queue, written at the end of the batch like the UDP queue. A `MediaPath`
/// tells a send which of the two it takes.
///
/// A server worker has one socket (`primarySocket`) that all its transports share. A client
/// with many connections to one server address (the load tester) opens a socket per
/// connection on a shared worker (`openSocket`), so the local socket tells them apart.
// @unchecked: all state is the worker thread's; other threads use only the inbox (lock + eventfd), the atomic counters and `stop`.
public final class MediaWorker: @unchecked Sendable {
    public static let batchSize = 32
    /// `recvmmsg` batches read before the send batch goes out.
    static let receiveBatchesPerSend = 8
    /// Outgoing datagrams queued per loop turn before a forced flush.
    static let sendQueueCapacity = 1024
    /// Period of `tick` (DTLS timers, consent, RTCP reports).
    public static let tickMicros: UInt64 = 10_000
    /// epoll events taken per wait: enough for a client worker with a socket per connection.
    static let eventsPerWait = 64
    /// The inbox's epoll tag; a socket's tag is its descriptor.
    static let inboxTag: UInt64 = 1 << 32
    /// The TCP listener's tag; a TCP connection's is `tcpConnectionTag | slot`.
    static let tcpListenerTag: UInt64 = 2 << 32
    static let tcpConnectionTag: UInt64 = 3 << 32

    public let index: Int
    /// The socket the worker was made with.
    public let primarySocket: WorkerSocket
    public var localAddress: SocketAddress { primarySocket.localAddress }
    /// Where the worker's TCP listener is bound (the port known after binding); nil without one.
    public let localTCPAddress: SocketAddress?
    /// Buffers for everything the worker receives and sends. Worker thread only.
    public let pool: PacketBufferPool
    /// Reference counts over `pool` for packets lent to other workers (`SharedPackets`).
    public let shared: SharedPackets
    /// What other workers hand this one (cross-worker fan-out); set before `start`. Held
    /// weakly: the inlet's owner holds the worker.
    public var inlet: WorkerInlet? {
        get { inletSlot.pointee.value }
        set { inletSlot.pointee.value = newValue }
    }
    private struct WeakInlet { weak var value: WorkerInlet? }
    private let inletSlot: UnsafeMutablePointer<WeakInlet>

    let socketFD: Int32
    /// Sockets from `openSocket`, closed by `closeSocket` or `deinit`.
    let extraSockets = Mutex<Set<Int32>>([])
    let epollFD: Int32
    private let inboxFD: Int32
    private let inbox = Mutex<[() -> Void]>([])
    private let running = Atomic<Bool>(false)
    private var thread: pthread_t?

    // The batch tables are memory the worker owns behind `let` pointers (freed in deinit), not
    // `var` arrays: an array stored in a class is reached under a dynamic exclusivity check
    // (swift_beginAccess, about 70 instructions) on every write, since its copy-on-write path
    // calls code the optimizer cannot see through; memory behind a pointer is not checked.

    // Receive side: one pool buffer per batch slot.
    let recvBatch: OpaquePointer
    let recvBuffers: UnsafeMutablePointer<Int32>
    let recvAddresses: UnsafeMutablePointer<sockaddr_storage>

    // Send side.
    let sendBatch: OpaquePointer
    let sendBuffers: UnsafeMutablePointer<Int32>
    let sendAddresses: UnsafeMutablePointer<sockaddr_storage>
    /// The socket each queued datagram leaves by.
    let sendSockets: UnsafeMutablePointer<Int32>
    var sendCount = 0

    // Demultiplexing tables.
    var transportsByUfrag: [ICEUfragKey: (socket: Int32, receiver: DatagramReceiver)] = [:]
    /// Looked up for every datagram received, so kept in memory the worker owns
    /// (`OwnedState`) rather than a stored `var`, whose every read a dynamic exclusivity check
    /// would guard, since inserting calls code the optimizer cannot see through.
    let transportsByTuple = OwnedState<[DatagramTuple: DatagramReceiver]>([:])
    private var tickables = WorkerTickTable()
    /// Sockets `closeSocket` closed since the last epoll wait. That wait may have returned an
    /// event for one of them, and its descriptor number may meanwhile belong to a socket
    /// another thread opened (a WebSocket the signaling thread accepted): reading it would
    /// swallow that socket's bytes. So the rest of the turn skips them.
    var closedThisTurn: [Int32] = []
    private var nextTick: UInt64 = 0

    /// Counters for /metrics, read racily from the control thread.
    public let datagramsIn = Atomic<UInt64>(0)
    public let datagramsOut = Atomic<UInt64>(0)
    public let datagramsDropped = Atomic<UInt64>(0)
    /// UDP send messages: one per datagram, or one per UDP GSO run of datagrams.
    public let sendMessages = Atomic<UInt64>(0)
    /// Receive-to-send time of the datagrams this worker handled.
    public let forwardDelay = ForwardDelayHistogram()
    private var nextDelayPublish: UInt64 = 0

    // TCP media connections (MediaWorker+TCP.swift).
    let tcp: TCPConnectionTable
    let tcpListenerFD: Int32
    /// One read's worth of stream bytes, decoded in place (allocated with the listener or the
    /// first outgoing connection).
    var tcpReadBuffer: UnsafeMutableRawBufferPointer?
    /// While accepting is paused (no free descriptor), when to try again; 0 otherwise.
    var tcpAcceptPausedUntil: UInt64 = 0
    var nextTCPCheck: UInt64 = 0
    var logLimiter = WorkerLogLimiter()
    /// When each receive batch of a turn arrived and how many datagrams it held, for
    /// `forwardDelay` once the turn's send batch is out.
    let receiveTimes: UnsafeMutablePointer<UInt64>
    let receiveCounts: UnsafeMutablePointer<Int>
    /// UDP GSO refusals already written to the log (`reportRefusedSegmentation`).
    var segmentationRefusalsReported: UInt64 = 0
    /// Where the worker writes its few log lines (bad TCP input), as warnings; set before `start`.
    public var log: Log?

    /// `tcpBindAddress`: also listen for ICE-TCP connections there (port 0: any free port).
    public init(index: Int, bindAddress: SocketAddress, tcpBindAddress: SocketAddress? = nil,
                tcpOptions: TCPMediaOptions = TCPMediaOptions(), poolCapacity: Int = 32768) throws(WorkerError) {
        self.index = index
        pool = PacketBufferPool(capacity: poolCapacity)
        shared = SharedPackets(pool: pool)
        inletSlot = .allocate(capacity: 1)
        inletSlot.initialize(to: WeakInlet())

        primarySocket = try Self.makeSocket(bindAddress: bindAddress)
        let fd = primarySocket.descriptor
        socketFD = fd
        tcp = TCPConnectionTable(options: tcpOptions)
        if let tcpBindAddress {
            do {
                (tcpListenerFD, localTCPAddress) = try Self.makeTCPListener(bindAddress: tcpBindAddress)
            } catch {
                close(fd)
                throw error
            }
        } else {
            tcpListenerFD = -1
            localTCPAddress = nil
        }
        epollFD = sluice_epoll_create()
        inboxFD = sluice_eventfd_create()
        _ = sluice_epoll_add(epollFD, socketFD, UInt64(socketFD))
        _ = sluice_epoll_add(epollFD, inboxFD, Self.inboxTag)
        if tcpListenerFD >= 0 {
            _ = sluice_epoll_add(epollFD, tcpListenerFD, Self.tcpListenerTag)
            tcpReadBuffer = Self.makeTCPReadBuffer()
        }

        // Nothing below throws: what is allocated here is freed by deinit.
        receiveTimes = .allocate(capacity: Self.receiveBatchesPerSend)
        receiveCounts = .allocate(capacity: Self.receiveBatchesPerSend)
        recvBatch = sluice_mmsg_batch_create(UInt32(Self.batchSize))
        recvAddresses = .allocate(capacity: Self.batchSize)
        recvAddresses.initialize(repeating: sockaddr_storage(), count: Self.batchSize)
        recvBuffers = .allocate(capacity: Self.batchSize)
        for i in 0..<Self.batchSize {
            let buffer = pool.take()!
            (recvBuffers + i).initialize(to: buffer)
            sluice_mmsg_set(recvBatch, UInt32(i), pool.pointer(buffer), PacketBufferPool.bufferSize, recvAddresses + i)
        }
        sendBatch = sluice_mmsg_batch_create(UInt32(Self.sendQueueCapacity))
        sendAddresses = .allocate(capacity: Self.sendQueueCapacity)
        sendAddresses.initialize(repeating: sockaddr_storage(), count: Self.sendQueueCapacity)
        sendBuffers = .allocate(capacity: Self.sendQueueCapacity)
        sendBuffers.initialize(repeating: -1, count: Self.sendQueueCapacity)
        sendSockets = .allocate(capacity: Self.sendQueueCapacity)
        sendSockets.initialize(repeating: -1, count: Self.sendQueueCapacity)
    }

    deinit {
        close(socketFD)
        closeAllTCP()
        tcpReadBuffer?.deallocate()
        for fd in extraSockets.withLock({ $0 }) { close(fd) }
        close(epollFD)
        close(inboxFD)
        sluice_mmsg_batch_destroy(recvBatch)
        sluice_mmsg_batch_destroy(sendBatch)
        recvAddresses.deallocate()
        receiveTimes.deallocate()
        receiveCounts.deallocate()
        sendAddresses.deallocate()
        recvBuffers.deallocate()
        sendBuffers.deallocate()
        sendSockets.deallocate()
        inletSlot.deinitialize(count: 1)
        inletSlot.deallocate()
    }

    // MARK: Control side (any thread)

    public func start() {
        running.store(true, ordering: .releasing)
        let context = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        pthread_create(&tid, nil, { raw in
            let worker = Unmanaged<MediaWorker>.fromOpaque(raw!).takeRetainedValue()
            worker.run()
            return nil
        }, context)
        thread = tid
    }

    /// Asks the loop to finish its current turn and exit, then joins the thread.
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        sluice_eventfd_signal(inboxFD)
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    /// Wakes the loop (any thread): another worker handed it packets.
    public func wake() {
        sluice_eventfd_signal(inboxFD)
    }

    /// Runs `command` on the worker thread at its next loop turn, in submission order.
    public func execute(_ command: @escaping () -> Void) {
        inbox.withLock { $0.append(command) }
        sluice_eventfd_signal(inboxFD)
    }

    // MARK: Worker thread

    /// CPU time this thread has used, in µs (call on the worker, e.g. through `execute`).
    public static func threadCPUMicros() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1_000
    }

    /// STUN binding requests for `ufrag` arriving on `socket` (default: the primary) go to `receiver`.
    public func register(ufrag: String, receiver: DatagramReceiver, socket: WorkerSocket? = nil) {
        guard let key = ICEUfragKey(ufrag) else { return }
        transportsByUfrag[key] = (socket?.descriptor ?? socketFD, receiver)
    }

    /// Forgets `receiver`'s routes and closes its TCP connections (after writing what they hold).
    public func unregister(receiver: DatagramReceiver) {
        transportsByUfrag = transportsByUfrag.filter { $0.value.receiver !== receiver }
        transportsByTuple.pointee = transportsByTuple.pointee.filter { $0.value !== receiver }
        tickables.remove(ObjectIdentifier(receiver))
        closeTCPConnections(of: receiver)
    }

    /// Routes DTLS and SRTP on `path` to `receiver` (after ICE confirmed the tuple). A TCP
    /// connection is bound once: to the first transport that authenticated a check on it.
    public func bind(_ path: MediaPath, to receiver: DatagramReceiver) {
        switch path.kind {
        case .udp:
            transportsByTuple.pointee[DatagramTuple(socket: path.local, remote: path.remote)] = receiver
        case .tcp:
            if let connection = tcp.connection(for: path), connection.receiver == nil {
                connection.receiver = receiver
            }
        }
    }

    /// The UDP path to `address` through `socket` (default: the primary).
    public func udpPath(to address: SocketAddress, via socket: WorkerSocket? = nil) -> MediaPath {
        .udp(socket: socket?.descriptor ?? socketFD, remote: address)
    }

    /// The sizes of the worker's tables of transports (worker thread; a leak test's count:
    /// each is back to its idle size when no transport is left).
    public var tableSizes: [String: Int] {
        ["worker.transportsByUfrag": transportsByUfrag.count, "worker.transportsByTuple": transportsByTuple.pointee.count,
         "worker.tickables": tickables.count, "worker.tcpConnections": tcp.openCount,
         "worker.inbox": inbox.withLock { $0.count }]
    }

    public func addTickable(_ item: WorkerTickable) {
        tickables.add(item)
    }

    public func removeTickable(_ item: WorkerTickable) {
        tickables.remove(ObjectIdentifier(item))
    }

    /// Ticks `item` at the next turn rather than when its last tick asked (worker thread).
    public func tickSoon(_ item: WorkerTickable) {
        tickables.makeDue(ObjectIdentifier(item))
    }

    private func run() {
        var tags = [UInt64](repeating: 0, count: Self.eventsPerWait)
        var flags = [UInt32](repeating: 0, count: Self.eventsPerWait)
        var inletBusy = false
        while running.load(ordering: .acquiring) {
            let now = MonotonicClock.nowMicros()
            let waitMs = nextTick > now && !inletBusy ? Int32((nextTick - now + 999) / 1000) : 0
            let ready = tags.withUnsafeMutableBufferPointer { tagBuffer in
                flags.withUnsafeMutableBufferPointer {
                    sluice_epoll_wait_events(epollFD, tagBuffer.baseAddress, $0.baseAddress, Int32(Self.eventsPerWait), waitMs)
                }
            }
            if ready > 0 {
                for i in 0..<Int(ready) {
                    let tag = tags[i]
                    if tag == Self.inboxTag {
                        drainInbox()
                    } else if tag < Self.inboxTag {
                        let fd = Int32(truncatingIfNeeded: tag)
                        if closedThisTurn.isEmpty || !closedThisTurn.contains(fd) { receiveBatches(socket: fd) }
                    } else {
                        handleTCPEvent(tag: tag, flags: flags[i])
                    }
                }
            }
            let after = MonotonicClock.nowMicros()
            if after >= nextTick {
                nextTick = after + Self.tickMicros
                tickDue(now: after)
                if after >= nextTCPCheck {
                    nextTCPCheck = after + 500_000
                    checkTCPConnections(now: after)
                }
                if after >= nextDelayPublish {
                    nextDelayPublish = after + 1_000_000
                    forwardDelay.publish()
                    reportRefusedSegmentation(now: after)
                }
            }
            inletBusy = inlet?.pump(now: MonotonicClock.nowMicros()) ?? false
            shared.sweep()
            flushSends()
            if !closedThisTurn.isEmpty { closedThisTurn.removeAll(keepingCapacity: true) }
        }
        // Run what is left in the inbox so that shutdown commands take effect.
        drainInbox()
        flushSends()
    }

    private func tickDue(now: UInt64) {
        var position = 0
        while position < tickables.count {
            if let item = tickables.dueItem(at: position, now: now) {
                item.tick(now: now)
                tickables.setDue(item.nextTick(after: now), for: item, at: position)
            }
            position += 1
        }
    }

    private func drainInbox() {
        sluice_eventfd_drain(inboxFD)
        let commands = inbox.withLock { queue -> [() -> Void] in
            let taken = queue
            queue.removeAll(keepingCapacity: true)
            return taken
        }
        for command in commands { command() }
    }
}
