import Foundation
import SluiceCalls
import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary
import SluiceWire
import SluiceLog

/// The JSON-RPC session layer of docs/protocol.md section 1, free of any socket: messages come
/// in as bytes, replies and notifications go out through each session's `SessionOutput`.
/// Confined to one thread (the server's service thread).
///
/// A thin composer: the sessions live in a `SessionTable` it owns, and each feature is a
/// handler that owns its own state and shares only that table: `ConnectHandler` (with access,
/// Auth/ConnectHandler+Access.swift), `StreamHandler`, `PrecallHandler`, `ModerationHandler`
/// (Auth/), `HookHandler` (Hooks/) and `CallHandler` (Calls/). This file holds the
/// transport's lifecycle (open, receive, close, kick, shutdown) and the surface the server
/// and its admin API use; `+Incoming` the request pipeline (admission, parse, reply, parked
/// requests), `+Methods` the routing of methods and media events to the handlers.
public final class SessionManager {
    let table: SessionTable
    let hookHandler: HookHandler
    let connects: ConnectHandler
    let streams: StreamHandler
    let precalls: PrecallHandler
    let moderation: ModerationHandler
    let calls: CallHandler
    let speakers: SpeakerHandler

    public var config: SignalingConfig { table.config }
    public var media: MediaControl { table.media }
    var log: Log { table.log }
    /// The apps' status callbacks (docs/protocol.md section 4).
    public var hooks: HookDispatcher { hookHandler.dispatcher }
    /// The cluster's stream names when this server is a cluster node; nil: names are this
    /// node's alone (StreamHandler+NameRegistry.swift). Set before the server starts.
    public var nameRegistry: StreamNameRegistry? {
        get { streams.nameRegistry }
        set { streams.nameRegistry = newValue }
    }
    /// Users online and their calls (docs/protocol.md section 6, "Calls"; Calls/).
    public var callBook: CallBook { calls.callBook }
    /// Where calls are logged; nil keeps no log (`calls.database` empty). Set before the
    /// server starts.
    public var callLog: CallLogStore? {
        get { calls.callLog }
        set { calls.callLog = newValue }
    }
    /// Wakes the service thread from any thread (set by the server when it starts).
    public var wakeup: @Sendable () -> Void {
        get { table.wakeup }
        set { table.wakeup = newValue }
    }

    /// `clock` gives monotonic microseconds (rate limiting); `makeSessionID`, `hookTransport`
    /// and `wallClockMillis` are for tests (hooks go through Sluice's own HTTP/HTTPS client by default).
    public init(config: SignalingConfig, media: MediaControl, log: Log = Log(),
                clock: @escaping () -> UInt64 = MonotonicClock.nowMicros,
                makeSessionID: (() -> SessionID)? = nil,
                hookTransport: HookTransport? = nil,
                wallClockMillis: (() -> Int64)? = nil) {
        let wallMillis = wallClockMillis ?? { Int64(Date().timeIntervalSince1970 * 1000) }
        table = SessionTable(config: config, media: media, log: log, clock: clock, wallClockMillis: wallMillis)
        let transport = hookTransport ?? (config.apps.contains { $0.hooks != nil }
                                          ? SocketHookTransport() : UnusedHookTransport())
        hookHandler = HookHandler(table: table, dispatcher: HookDispatcher(apps: config.apps, transport: transport, log: log))
        connects = ConnectHandler(table: table, hooks: hookHandler,
                                  makeSessionID: makeSessionID ?? SessionManager.randomSessionID)
        streams = StreamHandler(table: table, hooks: hookHandler)
        precalls = PrecallHandler(table: table)
        moderation = ModerationHandler(table: table)
        speakers = SpeakerHandler(table: table)
        calls = CallHandler(table: table, hooks: hookHandler, streams: streams)
        streams.calls = calls
        table.pipeline = self
    }

    /// Sessions with an open transport, connected or not.
    public var openSessionCount: Int { table.sessions.count }
    /// Sessions that completed `connect`.
    public var connectedSessionCount: Int { table.connected.count }

    /// `layerChanged` events since the start (every player's switches), for `/metrics`.
    public internal(set) var layerSwitches: UInt64 = 0

    /// Calls ringing or running, for `/metrics`.
    public var activeCallCount: Int { calls.callBook.activeCallCount }

    public func session(withID id: SessionID) -> RPCSession? { table.connected[id] }

    /// Connected sessions, oldest connection first.
    public var connectedSessions: [RPCSession] { table.connectedSessions }

    /// Requests waiting for an authorizing hook, over all sessions.
    public var parkedRequestCount: Int { hookHandler.parked.count }

    /// From any thread: runs `work` on the service thread at its next wake (the answer of a
    /// store that read on a thread of its own, say).
    public func runOnServiceThread(_ work: @escaping () -> Void) {
        table.runOnServiceThread(work)
    }

    /// With a cluster: where this node's streams' audio levels go for the other nodes' speaker
    /// followers (called on the service thread; hand over, never wait). Set before start.
    public func publishSpeakerLevels(_ body: @escaping ([SpeakerLevel]) -> Void) {
        speakers.publishLocal = body
    }

    /// Where other threads put the other nodes' streams' audio levels (the whole set as last
    /// read); the service thread takes them at its next wake.
    public var remoteSpeakerLevels: SpeakerLevelInbox { speakers.remoteInbox }

    /// `appKey` and `token` as `connect` gives them; at least one is set.
    public func checkAccess(appKey: String?, token: String?) throws(AccessRefusal) -> SessionAccess {
        try connects.checkAccess(appKey: appKey, token: token)
    }

    /// Makes this node take part in calls across `cluster` (before the server starts).
    public func join(_ cluster: CallCluster) {
        calls.join(cluster)
    }

    /// A batch of call messages from node `from` (service thread), from
    /// `POST /api/v1/cluster/calls`; see Calls/Cluster/CallHandler+Cluster.swift.
    public func receiveClusterCalls(from node: String, _ messages: [ClusterCallMessage]) -> ClusterCallReply {
        calls.receiveClusterCalls(from: node, messages)
    }

    /// Each wake of the signaling thread: the cluster's name registry and its load figures.
    public func reportFigures() {
        streams.reportFigures()
    }

    /// The sizes of the session layer's tables, its sessions' tables summed, and the call
    /// book's (service thread): a leak test's count, each back to its idle size when the
    /// sessions are gone.
    public var tableSizes: [String: Int] {
        var sizes = calls.callBook.tableSizes
        let sessions = table.sessions
        sizes["sessions.open"] = sessions.count
        sizes["sessions.connected"] = table.connected.count
        sizes["sessions.parked"] = hookHandler.parked.count
        sizes["sessions.hookSubjects"] = hookHandler.subjects.count
        sizes["sessions.claimedNames"] = streams.claimedNames.count
        sizes["sessions.afterReply"] = calls.afterReply.count
        sizes["sessions.mediaCallEffects"] = calls.mediaCallEffects.count
        sizes["sessions.handles"] = sessions.values.reduce(0) { $0 + $1.handles.count }
        sizes["sessions.handleCustom"] = sessions.values.reduce(0) { $0 + $1.hooks.handleCustom.count }
        sizes["sessions.precallApps"] = precalls.rate.appCount
        for (name, size) in calls.callRelay?.tableSizes ?? [:] { sizes[name] = size }
        return sizes
    }

    // MARK: The transport's lifecycle

    /// Ends a session from the server side (REST kick): its handles end and it hears of
    /// that, then `session` DISCONNECTED with `info`, then close 1000. False if unknown.
    @discardableResult
    public func kick(_ id: SessionID, info: String = "Disconnected by server") -> Bool {
        guard let session = table.connected[id] else { return false }
        media.endSession(id)
        drainMediaEvents()
        calls.sessionEnded(id)
        hookHandler.sessionEnded(id)
        session.send(RPCMessage.notification("session", ["status": "DISCONNECTED", "info": .string(info)]))
        table.connected[id] = nil
        session.close(code: CloseCode.normal, reason: "Disconnected by server")
        return true
    }

    /// A transport opened: a new session waiting for `connect`.
    public func open(output: SessionOutput) -> RPCSession {
        let session = table.open(output: output)
        log.debug("connection \(session.connectionID): opened", session.logFields)
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
        guard table.sessions.removeValue(forKey: session.connectionID) != nil else { return }
        if let id = session.sessionID {
            table.connected[id] = nil
            session.state = .closing
            media.endSession(id)
            drainMediaEvents()
            calls.sessionEnded(id)
            drainMediaEvents()
            hookHandler.sessionEnded(id)
            speakers.sessionEnded(id)
        }
        hookHandler.dropParked(session)
        session.state = .closing
        session.output = nil
        log.debug("connection \(session.connectionID): closed", session.logFields)
    }

    /// Server shutdown: ends every session, delivers the resulting statuses, then sends
    /// `session` DISCONNECTED and closes each transport with 1001.
    public func shutdown() {
        let open = table.sessions.values.sorted { $0.connectionID < $1.connectionID }
        calls.endCallsForShutdown()
        for session in open {
            if let id = session.sessionID { media.endSession(id) }
        }
        drainMediaEvents()
        for session in open {
            hookHandler.dropParked(session)
            if let id = session.sessionID {
                hookHandler.sessionEnded(id)
                session.send(RPCMessage.notification("session", ["status": "DISCONNECTED", "info": "Server shutdown"]))
                table.connected[id] = nil
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
