import CShims
import CUsrsctp
import Foundation
import Glibc
import Synchronization
import SluiceTransport
import SluiceVocabulary
import SluiceWire

/// All of Sluice's SCTP: usrsctp, started with no threads of its own
/// (`usrsctp_init_nothreads`), driven by this one thread ("sluice-sctp"). It feeds usrsctp
/// the packets workers hand over, runs its timers every 10 ms, reads the messages, answers
/// DCEP, and forwards messages between the handles of a stream (`SCTPStack+Forward`). Every
/// usrsctp call, and so every usrsctp callback (output, upcall), happens on this thread, so
/// none of the state below is locked; the inbox is the only thing other threads touch.
///
/// Workers never wait for it: a transport's SCTP packets reach it through `SCTPInlet`
/// (bounded), and what usrsctp writes goes back to the transport's worker through the
/// worker's own command inbox, to be sealed in DTLS there. Media never passes here.
///
/// usrsctp keeps one stack per process, so there is one of these (`shared`); servers that
/// share a process (the in-process tests) are kept apart by `DataChannelEndpoint.scope`.
// @unchecked: every usrsctp call and the association table are the SCTP thread's; other threads only post commands to its locked inbox.
public final class SCTPStack: @unchecked Sendable {
    public static let shared = SCTPStack()

    static let timerMillis: Int32 = 10
    /// Per association: what usrsctp may hold unsent for a slow peer (the backlog bound), and
    /// what it may hold received and unread.
    static let sendBufferBytes: Int32 = 1 << 20
    static let receiveBufferBytes: Int32 = 1 << 20

    enum Command {
        case open(DataChannelEndpoint, SCTPInlet, WeakTransport, MediaWorker)
        case close(StreamHandle)
        case packet(Int, [UInt8])
        /// A leak test's count of one scope's tables, answered on the stack's thread.
        case count(Int, @Sendable ([String: Int]) -> Void)
    }

    struct WeakTransport { weak var transport: WebRTCTransport? }

    struct GroupKey: Hashable {
        var scope: Int
        var stream: String
    }

    /// One stream's handles with data channels: its publisher and its players, in join order.
    struct Group {
        var publisher: Int?
        var players: [Int] = []
        var isEmpty: Bool { publisher == nil && players.isEmpty }
    }

    struct SessionKey: Hashable {
        var scope: Int
        var session: SessionID
    }

    private let inbox = Mutex<[Command]>([])
    private let wakeFD: Int32
    private let started = Mutex<Bool>(false)
    private let nextID = Atomic<Int>(1)
    /// Each handle's channels as of the last pass, with its server's scope.
    private let board = Mutex<[StreamHandle: (scope: Int, channels: [DataChannelStats])]>([:])
    private let logSink = Mutex<(@Sendable (_ line: String, _ handle: StreamHandle?) -> Void)?>(nil)

    // The SCTP thread's own state.
    var associations: [Int: SCTPAssociation] = [:]
    var byHandle: [StreamHandle: Int] = [:]
    var groups: [GroupKey: Group] = [:]
    var limits: [SessionKey: SessionRateLimit] = [:]
    /// Associations usrsctp said may have something to read, and those with packets to send.
    var readable: Set<Int> = []
    var toFlush: Set<Int> = []
    var scratch = [UInt8](repeating: 0, count: 65_536)

    private init() {
        wakeFD = sluice_eventfd_create()
    }

    /// Where log lines go (the server's log), each with the handle it is about, for a JSON
    /// line's `handle` field; the last server to set it wins.
    public func setLog(_ log: @escaping @Sendable (_ line: String, _ handle: StreamHandle?) -> Void) {
        logSink.withLock { $0 = log }
    }

    func logLine(_ line: String, handle: StreamHandle? = nil) {
        logSink.withLock { $0 }?(line, handle)
    }

    // MARK: Any thread

    /// Gives `transport`'s data channels to the stack (on the transport's worker thread: the
    /// transport's SCTP packets go to the stack from then on).
    public func open(_ endpoint: DataChannelEndpoint, transport: WebRTCTransport) {
        startIfNeeded()
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let inlet = SCTPInlet(id: id, localPort: endpoint.localPort, remotePort: endpoint.remotePort, stack: self)
        transport.applicationDataReceiver = { bytes, now in inlet.receive(bytes, now: now) }
        push(.open(endpoint, inlet, WeakTransport(transport: transport), transport.worker))
    }

    /// Ends the handle's association and channels (any thread; a handle without is ignored).
    /// Before any `open` the stack's thread has not started and knows no handle: nothing to
    /// close, and a command queued then would wait in the inbox for good.
    public func close(_ handle: StreamHandle) {
        guard started.withLock({ $0 }) else { return }
        push(.close(handle))
    }

    /// The sizes of the stack's tables for `scope` (one server's), and its inbox (any thread;
    /// waits for the stack's thread up to `timeout` seconds). A leak test's count: each is
    /// back to its idle size when the scope has no data channel left. The inbox is the
    /// process's and counts only before the stack's thread started: from then on the thread
    /// drains it every pass, while commands of other servers in the process come and go.
    public func tableSizes(scope: Int, timeout: Double = 2) -> [String: Int] {
        guard started.withLock({ $0 }) else {
            return ["dataChannels.inbox": inbox.withLock { $0.count }]
        }
        let answer = Mutex<[String: Int]?>(nil)
        let done = DispatchSemaphore(value: 0)
        push(.count(scope, { sizes in
            answer.withLock { $0 = sizes }
            done.signal()
        }))
        _ = done.wait(timeout: .now() + timeout)
        var sizes = answer.withLock { $0 } ?? ["dataChannels.unanswered": 1]
        sizes["dataChannels.inbox"] = 0
        return sizes
    }

    /// The handle's channels and their counters, as of the stack's last pass.
    public func stats(for handle: StreamHandle) -> [DataChannelStats] {
        board.withLock { $0[handle]?.channels } ?? []
    }

    func deliver(_ id: Int, _ bytes: [UInt8]) {
        push(.packet(id, bytes))
    }

    private func push(_ command: Command) {
        inbox.withLock { $0.append(command) }
        sluice_eventfd_signal(wakeFD)
    }

    private func startIfNeeded() {
        started.withLock { running in
            guard !running else { return }
            running = true
            let thread = Thread { [self] in run() }
            thread.name = "sluice-sctp"
            thread.start()
        }
    }

    // MARK: The SCTP thread

    private func run() {
        sluice_sctp_init(sctpOutput)
        var last = MonotonicClock.nowMicros()
        var poller = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
        while true {
            _ = poll(&poller, 1, Self.timerMillis)
            sluice_eventfd_drain(wakeFD)
            let commands = inbox.withLock { queue -> [Command] in
                let taken = queue
                queue.removeAll(keepingCapacity: true)
                return taken
            }
            for command in commands {
                handle(command)
                readAll()
            }
            let now = MonotonicClock.nowMicros()
            let elapsedMillis = (now - last) / 1_000
            if elapsedMillis > 0 {
                last += elapsedMillis * 1_000
                usrsctp_handle_timers(UInt32(min(elapsedMillis, UInt64(UInt32.max))))
                readAll()
            }
            flushAll()
            publishStats()
        }
    }

    private func handle(_ command: Command) {
        switch command {
        case .open(let endpoint, let inlet, let transport, let worker):
            let association = SCTPAssociation(id: inlet.id, endpoint: endpoint, worker: worker,
                                              transport: transport.transport, inlet: inlet)
            if let previous = byHandle[endpoint.handle] { remove(previous) }
            associations[inlet.id] = association
            byHandle[endpoint.handle] = inlet.id
            let key = GroupKey(scope: endpoint.scope, stream: endpoint.stream)
            var group = groups[key] ?? Group()
            if endpoint.role == .publish { group.publisher = inlet.id } else { group.players.append(inlet.id) }
            groups[key] = group
            // A relay link's edge starts the association (its DTLS is up when it is opened).
            if endpoint.relay == .edge { _ = startIfIdle(association) }
        case .close(let handle):
            if let id = byHandle[handle] { remove(id) }
        case .packet(let id, let bytes):
            guard let association = associations[id] else { return }
            association.inlet.queued.subtract(bytes.count, ordering: .relaxed)
            if association.failed { return }
            guard startIfIdle(association) else { return }
            bytes.withUnsafeBytes { usrsctp_conninput(association.address, $0.baseAddress, $0.count, 0) }
            readable.insert(id)
        case .count(let scope, let answer):
            let mine = associations.values.filter { $0.endpoint.scope == scope }
            answer(["dataChannels.associations": mine.count,
                    "dataChannels.sockets": mine.filter { $0.socket != nil }.count,
                    "dataChannels.byHandle": mine.filter { byHandle[$0.endpoint.handle] != nil }.count,
                    "dataChannels.groups": groups.keys.filter { $0.scope == scope }.count,
                    "dataChannels.rateLimits": limits.keys.filter { $0.scope == scope }.count,
                    "dataChannels.statsBoard": board.withLock { $0.values.filter { $0.scope == scope }.count }])
        }
    }

    /// Makes the association's socket unless it has one; false when usrsctp refused (logged).
    private func startIfIdle(_ association: SCTPAssociation) -> Bool {
        guard association.socket == nil else { return true }
        let error = association.start(upcall: sctpUpcall, sendBuffer: Self.sendBufferBytes,
                                      receiveBuffer: Self.receiveBufferBytes)
        guard error != 0 else {
            readable.insert(association.id)
            toFlush.insert(association.id)
            return true
        }
        logLine("data channel \(association.endpoint.handle): SCTP did not start (errno \(error))",
                handle: association.endpoint.handle)
        association.close()
        return false
    }

    private func remove(_ id: Int) {
        guard let association = associations[id] else { return }
        association.close()
        flush(association)  // the ABORT
        associations[id] = nil
        readable.remove(id)
        toFlush.remove(id)
        let endpoint = association.endpoint
        if byHandle[endpoint.handle] == id { byHandle[endpoint.handle] = nil }
        let key = GroupKey(scope: endpoint.scope, stream: endpoint.stream)
        if var group = groups[key] {
            if group.publisher == id { group.publisher = nil }
            group.players.removeAll { $0 == id }
            groups[key] = group.isEmpty ? nil : group
        }
        let sessionKey = SessionKey(scope: endpoint.scope, session: endpoint.session)
        if !associations.values.contains(where: { $0.endpoint.scope == endpoint.scope && $0.endpoint.session == endpoint.session }) {
            limits[sessionKey] = nil
        }
        board.withLock { $0[endpoint.handle] = nil }
    }

    /// usrsctp wrote a packet for association `id` (called back on this thread).
    func output(id: Int, bytes: UnsafeRawBufferPointer) {
        guard let association = associations[id] else { return }
        association.outbox.append(Array(bytes))
        toFlush.insert(id)
    }

    private func flushAll() {
        for id in toFlush {
            if let association = associations[id] { flush(association) }
        }
        toFlush.removeAll(keepingCapacity: true)
    }

    /// Hands the association's packets to its worker, which seals them in DTLS and sends.
    private func flush(_ association: SCTPAssociation) {
        guard !association.outbox.isEmpty else { return }
        let packets = association.outbox
        association.outbox.removeAll(keepingCapacity: true)
        let weak = WeakTransport(transport: association.transport)
        association.worker.execute { weak.transport?.sendApplicationData(packets) }
    }

    private func publishStats() {
        var changed: [(StreamHandle, Int, [DataChannelStats])] = []
        for association in associations.values where association.statsChanged {
            association.statsChanged = false
            changed.append((association.endpoint.handle, association.endpoint.scope, association.channelStats))
        }
        guard !changed.isEmpty else { return }
        board.withLock { board in
            for (handle, scope, stats) in changed { board[handle] = (scope, stats) }
        }
    }
}

/// usrsctp's output callback: `addr` is the association's id (see `SCTPAssociation.address`).
private let sctpOutput: sluice_sctp_output_fn = { addr, buffer, length, _, _ in
    guard let addr, let buffer, length > 0 else { return 0 }
    SCTPStack.shared.output(id: Int(bitPattern: addr), bytes: UnsafeRawBufferPointer(start: buffer, count: length))
    return 0
}

/// usrsctp's socket upcall: the socket may be readable. Only marked here (usrsctp holds its
/// locks during the call); `readAll` reads it after.
private let sctpUpcall: sluice_sctp_upcall_fn = { _, arg, _ in
    guard let arg else { return }
    SCTPStack.shared.readable.insert(Int(bitPattern: arg))
}
