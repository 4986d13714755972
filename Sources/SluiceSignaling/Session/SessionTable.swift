import SluiceControl
import SluiceJSON
import SluiceVocabulary
import SluiceLog

/// What the feature handlers share, and all they share: the open and connected sessions, the
/// config, the media engine, the log, the clocks and the service thread's wakeup.
/// `SessionManager` owns it and hands it to each handler. Confined to the service thread.
final class SessionTable {
    let config: SignalingConfig
    let media: MediaControl
    let log: Log
    /// Monotonic microseconds (rate limiting, the cluster's timers).
    let clock: () -> UInt64
    /// Milliseconds since the epoch, for the hook bodies' `timestamp`, tokens and TURN credentials.
    let wallClockMillis: () -> Int64
    private var nextConnectionID = 1
    /// Every session whose transport is still open.
    var sessions: [Int: RPCSession] = [:]
    /// Connected sessions by id, for routing media events.
    var connected: [SessionID: RPCSession] = [:]
    /// Wakes the service thread from any thread (set by the server when it starts).
    var wakeup: @Sendable () -> Void = {}
    /// Work other threads hand to the service thread (`runOnServiceThread`).
    let serviceInbox = Inbox<() -> Void>()
    /// The request pipeline's steps that cross the handlers (the manager, which owns this table).
    weak var pipeline: SessionPipeline?
    /// Set when the server drains (SessionManager+Drain.swift): the monotonic microsecond its
    /// remaining sessions are closed at. Never cleared: the process ends after a drain.
    var drainDeadline: UInt64?

    init(config: SignalingConfig, media: MediaControl, log: Log, clock: @escaping () -> UInt64,
         wallClockMillis: @escaping () -> Int64) {
        self.config = config
        self.media = media
        self.log = log
        self.clock = clock
        self.wallClockMillis = wallClockMillis
    }

    /// A transport opened: a new session waiting for `connect`.
    func open(output: SessionOutput) -> RPCSession {
        let session = RPCSession(connectionID: nextConnectionID, output: output,
                                 requestsPerSecond: config.requestsPerSecond)
        nextConnectionID += 1
        sessions[session.connectionID] = session
        return session
    }

    /// Whether the transport of `session` is still open (it is still this table's).
    func isOpen(_ session: RPCSession) -> Bool { sessions[session.connectionID] === session }

    /// Connected sessions, oldest connection first.
    var connectedSessions: [RPCSession] {
        connected.values.sorted { $0.connectionID < $1.connectionID }
    }

    /// The configured app of the session, if it has one.
    func app(of session: RPCSession) -> SignalingConfig.App? {
        session.appKey.flatMap { config.app(withKey: $0) }
    }

    /// 1017 while the server drains: a new session, stream or player would only be cut at the deadline.
    func refuseWhileDraining() throws(RPCError) {
        if drainDeadline != nil { throw .serverDraining }
    }

    func requireHandleCapacity(_ session: RPCSession) throws(RPCError) {
        guard session.handles.count < config.maxHandlesPerSession else { throw .limitReached("handles per session") }
    }

    /// An error reply to a message that gets no other answer.
    func reject(_ session: RPCSession, id: JSONValue, _ error: RPCError) {
        log.info("connection \(session.connectionID): rejected message with \(error.code): \(error.message)", session.logFields)
        session.send(RPCMessage.error(id: id, error))
    }

    /// From any thread: runs `work` on the service thread at its next wake.
    func runOnServiceThread(_ work: @escaping () -> Void) {
        serviceInbox.add(work)
        wakeup()
    }

    func drainMediaEvents() { pipeline?.drainMediaEvents() }

    func resumeParked(_ token: UInt64, after: () -> Void = {},
                      reply: (ParkedRequest) throws(RPCError) -> (JSONValue, SessionManager.FollowUp)) {
        pipeline?.resumeParked(token, after: after, reply: reply)
    }
}

/// The steps of the request pipeline that a handler sets off and the manager carries out:
/// delivering the engine's events (which every feature hears), and answering a parked request.
protocol SessionPipeline: AnyObject {
    func drainMediaEvents()
    func resumeParked(_ token: UInt64, after: () -> Void,
                      reply: (ParkedRequest) throws(RPCError) -> (JSONValue, SessionManager.FollowUp))
}
