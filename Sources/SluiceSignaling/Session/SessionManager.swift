import Foundation
import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary
import SluiceWire

/// The JSON-RPC session layer of docs/protocol.md section 1, free of any socket: messages come
/// in as bytes, replies and notifications go out through each session's `SessionOutput`.
/// Confined to one thread (the server's service thread).
public final class SessionManager {
    public let config: SignalingConfig
    public let media: MediaControl
    let log: Log
    private let clock: () -> UInt64
    private let makeSessionID: () -> SessionID
    private var nextConnectionID = 1
    /// Every session whose transport is still open.
    private var sessions: [Int: RPCSession] = [:]
    /// Connected sessions by id, for routing media events.
    private var connected: [SessionID: RPCSession] = [:]
    /// The apps' status callbacks (docs/protocol.md section 4).
    public let hooks: HookDispatcher
    /// Milliseconds since the epoch, for the hook bodies' `timestamp`.
    let wallClockMillis: () -> Int64
    /// Requests waiting for an authorizing hook, by token.
    var parked: [UInt64: ParkedRequest] = [:]
    var nextHookToken: UInt64 = 1
    /// Sessions of apps with hooks, from `connect` until their `disconnect` hook is queued.
    var hookSubjects: [SessionID: RPCSession] = [:]

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
        self.wallClockMillis = wallClockMillis ?? { Int64(Date().timeIntervalSince1970 * 1000) }
    }

    /// Sessions with an open transport, connected or not.
    public var openSessionCount: Int { sessions.count }
    /// Sessions that completed `connect`.
    public var connectedSessionCount: Int { connected.count }

    public func session(withID id: SessionID) -> RPCSession? { connected[id] }

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
            sessionEndedForHooks(id)
        }
        dropParked(session)
        session.state = .closing
        session.output = nil
        log.debug("connection \(session.connectionID): closed")
    }

    /// Delivers every queued media event to the session that owns its handle.
    public func drainMediaEvents() {
        media.drainEvents { event in
            if case let .streamStatus(session, handle, stream, role, status, info, _) = event {
                // One line per status change: the server's record of every stream's life.
                let line = "stream \(stream) \(role.rawValue) \(handle) (session \(session)): \(status.rawValue)"
                    + (info.map { " \"\($0)\"" } ?? "")
                if status == .failed { log.warn(line) } else { log.info(line) }
            }
            deliver(event)
        }
    }

    /// Server shutdown: ends every session, delivers the resulting statuses, then sends
    /// `session` DISCONNECTED and closes each transport with 1001.
    public func shutdown() {
        let open = sessions.values.sorted { $0.connectionID < $1.connectionID }
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

    // MARK: - Incoming messages

    enum Incoming {
        case text(UnsafeRawBufferPointer)
        case oversized(Int)
        case binary
    }

    /// What happens after the reply has been queued.
    enum FollowUp {
        case none
        case established
        case rejectAppKey
        case disconnect
        /// The request waits for an authorizing hook; no reply yet.
        case parked
    }

    private func handle(_ incoming: Incoming, from session: RPCSession) {
        guard session.state != .closing, sessions[session.connectionID] === session else { return }
        let verdict = session.rateLimiter.admit(nowMicros: clock())
        guard verdict == .allowed else {
            refuseOverLimit(incoming, from: session, exceeded: verdict == .exceeded)
            return
        }
        if session.hooks.isParked {
            // Per-session order: everything waits behind the parked request.
            queueBehindParked(incoming, from: session)
            return
        }
        process(incoming, from: session)
    }

    /// An admitted message: checked, parsed, dispatched and answered.
    func process(_ incoming: Incoming, from session: RPCSession) {
        let bytes: UnsafeRawBufferPointer
        switch incoming {
        case .oversized(let count):
            reject(session, id: .null, .invalidRequest("message of \(count) bytes exceeds the limit of \(config.maxMessageBytes) bytes"))
            return
        case .binary:
            reject(session, id: .null, .invalidRequest("binary frames are not supported"))
            return
        case .text(let text):
            bytes = text
        }
        guard bytes.count <= config.maxMessageBytes else {
            reject(session, id: .null, .invalidRequest("message of \(bytes.count) bytes exceeds the limit of \(config.maxMessageBytes) bytes"))
            return
        }
        let envelope: RPCEnvelope
        do {
            envelope = try RPCEnvelope.parse(bytes)
        } catch {
            if error.answered {
                reject(session, id: error.id, error.error)
            } else {
                log.info("connection \(session.connectionID): ignored a malformed notification: \(error.error.message)")
            }
            return
        }
        guard case .request(let id, let method, let params) = envelope else {
            log.debug("connection \(session.connectionID): notification ignored")
            return
        }
        var followUp = FollowUp.none
        do throws(RPCError) {
            let result = try dispatch(id: id, method: method, params: params, session: session, followUp: &followUp)
            if case .parked = followUp { return }
            session.send(RPCMessage.result(id: id, result))
        } catch {
            log.info("connection \(session.connectionID): \(method) failed with \(error.code): \(error.message)")
            session.send(RPCMessage.error(id: id, error))
        }
        perform(followUp, for: session)
        drainMediaEvents()
    }

    func perform(_ followUp: FollowUp, for session: RPCSession) {
        switch followUp {
        case .none, .parked:
            break
        case .established:
            session.send(RPCMessage.notification("session", ["status": "ESTABLISHED"]))
        case .rejectAppKey:
            session.close(code: CloseCode.unknownAppKey, reason: "Unknown app key")
        case .disconnect:
            end(session, code: CloseCode.normal, reason: "Disconnected", deliverOwnEvents: true)
        }
    }

    func reject(_ session: RPCSession, id: JSONValue, _ error: RPCError) {
        log.info("connection \(session.connectionID): rejected message with \(error.code): \(error.message)")
        session.send(RPCMessage.error(id: id, error))
    }

    /// Over the rate limit: 1008 to anything but a valid notification, with the request's
    /// id when it has a valid one.
    private func refuseOverLimit(_ incoming: Incoming, from session: RPCSession, exceeded: Bool) {
        var replyID: JSONValue? = .null
        if case .text(let bytes) = incoming, bytes.count <= config.maxMessageBytes {
            replyID = RPCEnvelope.replyID(for: bytes)
        }
        if let replyID { session.send(RPCMessage.error(id: replyID, .rateLimitExceeded)) }
        if exceeded {
            log.warn("connection \(session.connectionID): stayed over the rate limit, closing")
            end(session, code: CloseCode.rateLimited, reason: "Rate limit exceeded", deliverOwnEvents: false)
        } else {
            log.info("connection \(session.connectionID): over the rate limit")
        }
    }

    /// Ends the engine session (if connected) and closes the transport.
    private func end(_ session: RPCSession, code: UInt16, reason: String, deliverOwnEvents: Bool) {
        if let id = session.sessionID {
            if !deliverOwnEvents { connected[id] = nil }
            media.endSession(id)
            drainMediaEvents()
            connected[id] = nil
            sessionEndedForHooks(id)
        }
        dropParked(session)
        session.close(code: code, reason: reason)
    }

    // MARK: - Methods

    /// Checks in the order of docs/protocol.md "Which error wins": not connected (1000), unknown
    /// method (-32601), then params (-32602) and the method's own errors.
    private func dispatch(id: JSONValue, method: String, params: RPCParams, session: RPCSession,
                          followUp: inout FollowUp) throws(RPCError) -> JSONValue {
        if method != "connect" && session.sessionID == nil { throw .notConnected }
        guard Self.methods.contains(method) else { throw .methodNotFound(method) }
        try params.requireNamed()
        if method == "connect" {
            return try connect(params, id: id, session: session, followUp: &followUp)
        }
        guard let sessionID = session.sessionID else { throw .notConnected }
        switch method {
        case "publish":
            return try publish(params, id: id, session: session, sessionID: sessionID, followUp: &followUp)
        case "play":
            return try play(params, id: id, session: session, sessionID: sessionID, followUp: &followUp)
        case "update":
            let handle = try params.handle()
            let constraints = try params.constraints(required: true)
            try requireHandle(handle, of: session)
            var applied = constraints
            if session.handleRoles[handle] == .publish {
                try requireWithinLimits(constraints, session: session)
                applied = publishLimits(of: session).applied(to: constraints)
            }
            do {
                try media.update(handle: handle, constraints: applied)
            } catch {
                throw RPCError(error)
            }
            return [:]
        case "mute", "unmute":
            let handle = try params.handle()
            let kind = try params.kind()
            try requireHandle(handle, of: session)
            do {
                try media.setMuted(handle: handle, kind: kind, muted: method == "mute")
            } catch {
                throw RPCError(error)
            }
            return [:]
        case "stop":
            let handle = try params.handle()
            try requireHandle(handle, of: session)
            do {
                try media.stop(handle: handle)
            } catch {
                if error == .unknownHandle { session.handles[handle] = nil }
                throw RPCError(error)
            }
            session.handles[handle] = nil
            return [:]
        case "getStats":
            let handle = try params.handle()
            try requireHandle(handle, of: session)
            do {
                return MediaJSON.stats(try media.stats(handle: handle), identity: session.identity)
            } catch {
                if error == .unknownHandle { session.handles[handle] = nil }
                throw RPCError(error)
            }
        case "muteStream", "unmuteStream":
            return try moderateMute(params, muted: method == "muteStream", session: session)
        case "ping":
            return [:]
        case "disconnect":
            followUp = .disconnect
            return [:]
        default:
            throw .methodNotFound(method)
        }
    }

    /// Every method `dispatch` knows: one list, checked before params.
    static let methods: Set<String> = ["connect", "publish", "play", "update", "mute", "unmute", "stop", "getStats",
                                       "muteStream", "unmuteStream", "ping", "disconnect"]

    private func connect(_ params: RPCParams, id requestID: JSONValue, session: RPCSession,
                         followUp: inout FollowUp) throws(RPCError) -> JSONValue {
        // A second connect is a state error of the request itself, like 1000 before connect.
        guard session.sessionID == nil else { throw .invalidRequest("the session is already connected") }
        let token = try params.optionalString("token")
        // With a token the app key may be left out: the token's `iss` names the app.
        let givenKey = token == nil ? try params.requiredString("appKey") : try params.optionalString("appKey")
        let custom = try params.optionalObject("custom")
        _ = try params.optionalString("clientVersion")
        let access: SessionAccess
        do throws(AccessRefusal) {
            access = try checkAccess(appKey: givenKey, token: token)
        } catch {
            switch error {
            case .unknownAppKey:
                followUp = .rejectAppKey
                throw .unknownAppKey
            case .token(let refusal):
                throw RPCError(refusal)
            }
        }
        let appKey = access.appKey
        guard connected.count < config.maxSessions else { throw .limitReached("sessions") }
        // Before the connect hook, whose body carries the identity.
        session.identity = access.identity
        session.grants = access.grants
        var id = makeSessionID()
        while connected[id] != nil { id = SessionManager.randomSessionID() }
        session.hooks.custom = custom
        if hooks.hooks(forApp: appKey) != nil {
            park(session, id: requestID, event: .connect, appKey: appKey, sessionID: id, fields: [:],
                 custom: custom) { [unowned self] session throws(RPCError) in
                // Others may have connected while the hook ran.
                guard connected.count < config.maxSessions else { throw .limitReached("sessions") }
                guard connected[id] == nil else { throw .internalError("session id taken") }
                hookSubjects[id] = session
                return (establish(session, id: id, appKey: appKey), .established)
            }
            followUp = .parked
            return .null
        }
        followUp = .established
        return establish(session, id: id, appKey: appKey)
    }

    private func establish(_ session: RPCSession, id: SessionID, appKey: String) -> JSONValue {
        session.state = .connected(id)
        session.appKey = appKey
        connected[id] = session
        log.info("connection \(session.connectionID): session \(id) connected with app key \(appKey)"
                 + (session.identity.map { " as \"\($0)\"" } ?? ""))
        var result: JSONObject = ["sessionId": .string(id), "serverVersion": .string(config.serverVersion), "iceServers": iceServers(user: id)]
        if let identity = session.identity { result["identity"] = .string(identity) }
        return .object(result)
    }

    /// 1009 when a publisher asks for more than its app allows.
    private func requireWithinLimits(_ constraints: StreamConstraints, session: RPCSession) throws(RPCError) {
        if !publishLimits(of: session).allow(constraints) { throw RPCError(MediaError.constraintsExceedLimits) }
    }

    private func publish(_ params: RPCParams, id requestID: JSONValue, session: RPCSession, sessionID: SessionID,
                         followUp: inout FollowUp) throws(RPCError) -> JSONValue {
        let stream = try params.streamName()
        let sdp = try params.sdp()
        let constraints = try params.constraints()
        let record = try params.optionalBool("record", default: false)
        let custom = try params.optionalObject("custom")
        try requireGrant(.publish, stream: stream, record: record, session: session)
        try requireHandleCapacity(session)
        try requireWithinLimits(constraints, session: session)
        let limits = publishLimits(of: session)
        let request = PublishRequest(session: sessionID, stream: stream, offer: sdp,
                                     constraints: limits.applied(to: constraints),
                                     caps: PublishCaps(maxWidth: limits.maxWidth, maxHeight: limits.maxHeight,
                                                       maxFps: limits.maxFps,
                                                       stopWhenExceeded: stopsWhenExceeded(session)))
        let start = { [unowned self] (session: RPCSession) throws(RPCError) -> JSONValue in
            let answer: MediaAnswer
            do throws(MediaError) {
                answer = try media.publish(request)
            } catch {
                throw RPCError(error)
            }
            session.handles[answer.handle] = RPCSession.HandleRecord(role: .publish, stream: stream)
            if let custom { session.hooks.handleCustom[answer.handle] = custom }
            return ["handle": .string(answer.handle), "sdp": .string(answer.sdp)]
        }
        if let appKey = session.appKey, hooks.hooks(forApp: appKey) != nil {
            var fields: JSONObject = ["stream": .string(stream), "role": "publish"]
            if let given = params.members["constraints"], !given.isNull { fields["constraints"] = given }
            fields["record"] = .bool(record)
            park(session, id: requestID, event: .publishStream, appKey: appKey, sessionID: sessionID,
                 fields: fields, custom: custom ?? session.hooks.custom) { session throws(RPCError) in
                (try start(session), .none)
            }
            followUp = .parked
            return .null
        }
        return try start(session)
    }

    private func play(_ params: RPCParams, id requestID: JSONValue, session: RPCSession, sessionID: SessionID,
                      followUp: inout FollowUp) throws(RPCError) -> JSONValue {
        let stream = try params.streamName()
        let sdp = try params.sdp()
        let constraints = try params.constraints()
        let wait = try params.optionalBool("wait", default: false)
        let custom = try params.optionalObject("custom")
        try requireGrant(.play, stream: stream, record: false, session: session)
        try requireHandleCapacity(session)
        let request = PlayRequest(session: sessionID, stream: stream, offer: sdp, constraints: constraints, wait: wait)
        let start = { [unowned self] (session: RPCSession) throws(RPCError) -> JSONValue in
            let answer: MediaAnswer
            do throws(MediaError) {
                answer = try media.play(request)
            } catch {
                throw RPCError(error)
            }
            session.handles[answer.handle] = RPCSession.HandleRecord(role: .play, stream: stream)
            if let custom { session.hooks.handleCustom[answer.handle] = custom }
            return ["handle": .string(answer.handle), "sdp": .string(answer.sdp)]
        }
        if let appKey = session.appKey, hooks.hooks(forApp: appKey) != nil {
            var fields: JSONObject = ["stream": .string(stream), "role": "play"]
            if let given = params.members["constraints"], !given.isNull { fields["constraints"] = given }
            fields["wait"] = .bool(wait)
            park(session, id: requestID, event: .playStream, appKey: appKey, sessionID: sessionID,
                 fields: fields, custom: custom ?? session.hooks.custom) { session throws(RPCError) in
                (try start(session), .none)
            }
            followUp = .parked
            return .null
        }
        return try start(session)
    }

    private func requireHandle(_ handle: StreamHandle, of session: RPCSession) throws(RPCError) {
        guard session.handles[handle] != nil else { throw .unknownHandle }
    }

    private func requireHandleCapacity(_ session: RPCSession) throws(RPCError) {
        guard session.handles.count < config.maxHandlesPerSession else { throw .limitReached("handles per session") }
    }

    // MARK: - Media events

    private func deliver(_ event: MediaEvent) {
        notifyHooks(of: event)
        switch event {
        case let .streamStatus(sessionID, handle, stream, role, status, info, ends):
            guard let target = connected[sessionID] else { return }
            if ends { target.handles[handle] = nil }
            target.send(RPCMessage.notification("streamStatus", MediaJSON.streamStatus(
                handle: handle, stream: stream, role: role, status: status, info: info)))
        case let .streamEvent(sessionID, handle, stream, type, by, data):
            guard let target = connected[sessionID] else { return }
            target.send(RPCMessage.notification("streamEvent", MediaJSON.streamEvent(
                handle: handle, stream: stream, type: type, by: by, data: data)))
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
