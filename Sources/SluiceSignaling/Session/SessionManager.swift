import Foundation
import SluiceCalls
import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary
import SluiceWire

/// The JSON-RPC session layer of docs/protocol.md section 1, free of any socket: messages come
/// in as bytes, replies and notifications go out through each session's `SessionOutput`.
/// Confined to one thread (the server's service thread).
///
/// This file holds its state and the transport's lifecycle (open, receive, close, kick,
/// shutdown). The rest is in extensions named for what they hold: `+Incoming` (admission,
/// parse, reply), `+Methods` (dispatch), `+Connect`, `+PublishPlay`, `+MediaEvents`, and
/// `+ICEServers` here; `+Access` and `+Moderation` in Auth/; `+Hooks` in Hooks/.
public final class SessionManager {
    public let config: SignalingConfig
    public let media: MediaControl
    let log: Log
    let clock: () -> UInt64
    let makeSessionID: () -> SessionID
    private var nextConnectionID = 1
    /// Every session whose transport is still open.
    var sessions: [Int: RPCSession] = [:]
    /// Connected sessions by id, for routing media events.
    var connected: [SessionID: RPCSession] = [:]
    /// The apps' status callbacks (docs/protocol.md section 4).
    public let hooks: HookDispatcher
    /// Milliseconds since the epoch, for the hook bodies' `timestamp`.
    let wallClockMillis: () -> Int64
    /// Requests waiting for an authorizing hook, by token.
    var parked: [UInt64: ParkedRequest] = [:]
    var nextHookToken: UInt64 = 1
    /// Sessions of apps with hooks, from `connect` until their `disconnect` hook is queued.
    var hookSubjects: [SessionID: RPCSession] = [:]
    /// The cluster's stream names when this server is a cluster node; nil: names are this
    /// node's alone (SessionManager+NameRegistry.swift). Set before the server starts.
    public var nameRegistry: StreamNameRegistry?
    /// Names claimed in `nameRegistry`, by the publish handle that holds each.
    var claimedNames: [String: StreamHandle] = [:]
    /// When the load figures last went to `nameRegistry` (monotonic microseconds).
    var figuresReportedAt: UInt64 = 0
    /// Pre-call tests started per app in the last minute (SessionManager+Precall.swift).
    var precallRate = PrecallRateLimiter()
    /// Users online and their calls (docs/protocol.md section 6, "Calls"; Calls/).
    public let callBook: CallBook
    /// Where calls are logged; nil keeps no log (`calls.database` empty). Set before the
    /// server starts.
    public var callLog: CallLogStore?
    /// Call effects a request queued, carried out after its reply.
    var afterReply: [[CallEffect]] = []
    /// Call effects of media statuses, carried out after the engine's events are delivered.
    var mediaCallEffects: [CallEffect] = []
    /// Calls across the cluster's nodes (Calls/Cluster/); nil on a single node or without
    /// `cluster.secret`. Set with `join(_:)` before the server starts.
    var callRelay: ClusterCallRelay?
    /// Wakes the service thread from any thread (set by the server when it starts).
    public var wakeup: @Sendable () -> Void = {}
    /// Work other threads hand to the service thread (`runOnServiceThread`).
    let serviceInbox = Inbox<() -> Void>()

    /// `clock` gives monotonic microseconds (rate limiting); `makeSessionID`, `hookTransport`
    /// and `wallClockMillis` are for tests (hooks go through Sluice's own HTTP/HTTPS client by default).
    public init(config: SignalingConfig, media: MediaControl, log: Log = Log(),
                clock: @escaping () -> UInt64 = MonotonicClock.nowMicros,
                makeSessionID: (() -> SessionID)? = nil,
                hookTransport: HookTransport? = nil,
                wallClockMillis: (() -> Int64)? = nil) {
        self.config = config
        self.media = media
        self.log = log
        self.clock = clock
        self.makeSessionID = makeSessionID ?? SessionManager.randomSessionID
        let transport = hookTransport ?? (config.apps.contains { $0.hooks != nil }
                                          ? SocketHookTransport() : UnusedHookTransport())
        hooks = HookDispatcher(apps: config.apps, transport: transport, log: log)
        let wallMillis = wallClockMillis ?? { Int64(Date().timeIntervalSince1970 * 1000) }
        self.wallClockMillis = wallMillis
        callBook = CallBook(settings: config.calls, wallMillis: wallMillis, monoMicros: clock)
    }

    /// Sessions with an open transport, connected or not.
    public var openSessionCount: Int { sessions.count }
    /// Sessions that completed `connect`.
    public var connectedSessionCount: Int { connected.count }

    public func session(withID id: SessionID) -> RPCSession? { connected[id] }

    /// From any thread: runs `work` on the service thread at its next wake (the answer of a
    /// store that read on a thread of its own, say).
    public func runOnServiceThread(_ work: @escaping () -> Void) {
        serviceInbox.add(work)
        wakeup()
    }

    /// The sizes of the session layer's tables, its sessions' tables summed, and the call
    /// book's (service thread): a leak test's count, each back to its idle size when the
    /// sessions are gone.
    public var tableSizes: [String: Int] {
        var sizes = callBook.tableSizes
        sizes["sessions.open"] = sessions.count
        sizes["sessions.connected"] = connected.count
        sizes["sessions.parked"] = parked.count
        sizes["sessions.hookSubjects"] = hookSubjects.count
        sizes["sessions.claimedNames"] = claimedNames.count
        sizes["sessions.afterReply"] = afterReply.count
        sizes["sessions.mediaCallEffects"] = mediaCallEffects.count
        sizes["sessions.handles"] = sessions.values.reduce(0) { $0 + $1.handles.count }
        sizes["sessions.handleCustom"] = sessions.values.reduce(0) { $0 + $1.hooks.handleCustom.count }
        sizes["sessions.precallApps"] = precallRate.appCount
        for (name, size) in callRelay?.tableSizes ?? [:] { sizes[name] = size }
        return sizes
    }

    /// Whether the transport of `session` is still open (it is still this manager's).
    func isOpen(_ session: RPCSession) -> Bool { sessions[session.connectionID] === session }

    /// Connected sessions, oldest connection first.
    public var connectedSessions: [RPCSession] {
        connected.values.sorted { $0.connectionID < $1.connectionID }
    }

    /// Ends a session from the server side (REST kick): its handles end and it hears of
    /// that, then `session` DISCONNECTED with `info`, then close 1000. False if unknown.
    @discardableResult
    public func kick(_ id: SessionID, info: String = "Disconnected by server") -> Bool {
        guard let session = connected[id] else { return false }
        media.endSession(id)
        drainMediaEvents()
        callSessionEnded(id)
        sessionEndedForHooks(id)
        session.send(RPCMessage.notification("session", ["status": "DISCONNECTED", "info": .string(info)]))
        connected[id] = nil
        session.close(code: CloseCode.normal, reason: "Disconnected by server")
        return true
    }

    /// A transport opened: a new session waiting for `connect`.
    public func open(output: SessionOutput) -> RPCSession {
        let session = RPCSession(connectionID: nextConnectionID, output: output,
                                 requestsPerSecond: config.requestsPerSecond)
        nextConnectionID += 1
        sessions[session.connectionID] = session
        log.debug("connection \(session.connectionID): opened")
        return session
    }

    /// One complete text message.
    public func receive(_ bytes: UnsafeRawBufferPointer, from session: RPCSession) {
        handle(.text(bytes), from: session)
    }

    public func receive(_ text: String, from session: RPCSession) {
        var text = text
        text.withUTF8 { receive(UnsafeRawBufferPointer($0), from: session) }
    }

    /// The transport dropped a message over `maxMessageBytes` without keeping it.
    public func receiveOversized(byteCount: Int, from session: RPCSession) {
        handle(.oversized(byteCount), from: session)
    }

    /// A binary message: the protocol uses text frames only.
    public func receiveBinary(from session: RPCSession) {
        handle(.binary, from: session)
    }

    /// The transport closed (or dropped). The session's handles end; events meant for it
    /// are dropped, those for other sessions (its players) go out.
    public func closed(_ session: RPCSession) {
        guard sessions.removeValue(forKey: session.connectionID) != nil else { return }
        if let id = session.sessionID {
            connected[id] = nil
            session.state = .closing
            media.endSession(id)
            drainMediaEvents()
            callSessionEnded(id)
            drainMediaEvents()
            sessionEndedForHooks(id)
        }
        dropParked(session)
        session.state = .closing
        session.output = nil
        log.debug("connection \(session.connectionID): closed")
    }

    /// Server shutdown: ends every session, delivers the resulting statuses, then sends
    /// `session` DISCONNECTED and closes each transport with 1001.
    public func shutdown() {
        let open = sessions.values.sorted { $0.connectionID < $1.connectionID }
        endCallsForShutdown()
        for session in open {
            if let id = session.sessionID { media.endSession(id) }
        }
        drainMediaEvents()
        for session in open {
            dropParked(session)
            if let id = session.sessionID {
                sessionEndedForHooks(id)
                session.send(RPCMessage.notification("session", ["status": "DISCONNECTED", "info": "Server shutdown"]))
                connected[id] = nil
            }
            session.close(code: CloseCode.goingAway, reason: "Server shutdown")
        }
    }

    static func randomSessionID() -> SessionID {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        func hex(_ value: UInt64) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return hex(high) + hex(low)
    }
}
