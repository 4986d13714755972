import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// Authorizing hooks park their request (docs/protocol.md section 4): the reply waits for the
/// backend, and everything the session sends meanwhile waits behind it. Other sessions are
/// not affected. Notification hooks follow the media events.
extension SessionManager {
    /// Service thread, after the hook dispatcher's `wakeup`: finishes the requests whose
    /// hooks answered (or timed out).
    public func drainHookCompletions() {
        for (token, outcome) in hooks.takeCompletions() {
            finishParked(token, outcome: outcome)
        }
    }

    /// Requests waiting for an authorizing hook, over all sessions.
    public var parkedRequestCount: Int { parked.count }

    func park(_ session: RPCSession, id: JSONValue, event: HookEvent, appKey: String, sessionID: SessionID,
              fields: JSONObject, custom: JSONObject?,
              finish: @escaping (RPCSession) throws(RPCError) -> (JSONValue, FollowUp)) {
        let body = hookBody(event, appKey: appKey, sessionID: sessionID, session: session, fields: fields, custom: custom)
        guard let request = hooks.request(event, app: appKey, body: body) else { return }
        let token = park(session, id: id, label: event.rawValue, finish: finish)
        log.debug("connection \(session.connectionID): \(event.rawValue) waits for \(request.url)")
        hooks.authorize(request, token: token)
    }

    /// Parks the request `id` of `session` until `resumeParked(token)`: its reply waits, and
    /// what the session sends meanwhile waits behind it.
    func park(_ session: RPCSession, id: JSONValue, label: String,
              finish: @escaping (RPCSession) throws(RPCError) -> (JSONValue, FollowUp)) -> UInt64 {
        let token = nextHookToken
        nextHookToken += 1
        parked[token] = ParkedRequest(session: session, id: id, label: label, finish: finish)
        session.hooks.parkedToken = token
        return token
    }

    func queueBehindParked(_ incoming: Incoming, from session: RPCSession) {
        guard session.hooks.backlog.count < SessionHookState.backlogLimit else {
            var replyID: JSONValue? = .null
            if case .text(let bytes) = incoming { replyID = RPCEnvelope.replyID(for: bytes) }
            if let replyID { reject(session, id: replyID, .limitReached("requests waiting for a hook")) }
            return
        }
        switch incoming {
        case .text(let bytes): session.hooks.backlog.append(.text(Array(bytes)))
        case .oversized(let count): session.hooks.backlog.append(.oversized(count))
        case .binary: session.hooks.backlog.append(.binary)
        }
    }

    func finishParked(_ token: UInt64, outcome: HookOutcome) {
        resumeParked(token) { (request: ParkedRequest) throws(RPCError) -> (JSONValue, FollowUp) in
            guard outcome.allows else {
                log.info("connection \(request.session.connectionID): \(request.label) hook refused it: \(outcome)")
                throw .restrictedAccess
            }
            return try request.finish(request.session)
        }
    }

    /// Ends the wait of a parked request: `reply` makes its answer (or error), which goes out,
    /// then what the answer leads to and what waited behind the request. `after` runs after
    /// the reply went out (notifications the reply causes come after it).
    func resumeParked(_ token: UInt64, after: () -> Void = {},
                      reply: (ParkedRequest) throws(RPCError) -> (JSONValue, FollowUp)) {
        // Gone when the session closed meanwhile: nothing is started for it.
        guard let request = parked.removeValue(forKey: token) else { return }
        let session = request.session
        session.hooks.parkedToken = nil
        guard session.state != .closing, isOpen(session) else { return }
        var followUp = FollowUp.none
        do throws(RPCError) {
            let (result, then) = try reply(request)
            // Parked again (a publish behind an authorizing hook): its own answer comes later.
            if case .parked = then {
                after()
                carryOutAfterReply()
                return
            }
            session.send(RPCMessage.result(id: request.id, result))
            followUp = then
        } catch {
            log.info("connection \(session.connectionID): \(request.label) failed with \(error.code): \(error.message)")
            session.send(RPCMessage.error(id: request.id, error))
        }
        after()
        carryOutAfterReply()
        perform(followUp, for: session)
        drainMediaEvents()
        resumeBacklog(of: session)
    }

    /// Handles what waited behind the parked request, until one parks again.
    private func resumeBacklog(of session: RPCSession) {
        while !session.hooks.isParked, !session.hooks.backlog.isEmpty, session.state != .closing, isOpen(session) {
            let next = session.hooks.backlog.removeFirst()
            switch next {
            case .text(let bytes): bytes.withUnsafeBytes { process(.text($0), from: session) }
            case .oversized(let count): process(.oversized(count), from: session)
            case .binary: process(.binary, from: session)
            }
        }
    }

    /// The session is closing: its parked request and backlog are forgotten.
    func dropParked(_ session: RPCSession) {
        if let token = session.hooks.parkedToken {
            parked[token] = nil
            session.hooks.parkedToken = nil
            log.debug("connection \(session.connectionID): closed while waiting for a hook; request dropped")
        }
        session.hooks.backlog.removeAll()
    }

    // MARK: Notification hooks

    /// `streamStatus` on every status change, `streamEvent` on mute, unmute and layer events.
    func notifyHooks(of event: MediaEvent) {
        switch event {
        case let .streamStatus(sessionID, handle, stream, role, status, info, ends):
            guard let session = hookSubjects[sessionID], let appKey = session.appKey else { return }
            var fields: JSONObject = ["handle": .string(handle), "stream": .string(stream),
                                      "role": .string(role.rawValue), "status": .string(status.rawValue)]
            if let info { fields["info"] = .string(info) }
            notify(.streamStatus, session: session, appKey: appKey, sessionID: sessionID, fields: fields,
                   custom: session.hooks.custom(for: handle))
            if ends { session.hooks.handleCustom[handle] = nil }
        case let .streamEvent(sessionID, handle, stream, type, by, data):
            guard SessionManager.hookedEventTypes.contains(type),
                  let session = hookSubjects[sessionID], let appKey = session.appKey else { return }
            let fields = MediaJSON.streamEvent(handle: handle, stream: stream, type: type, by: by, data: data)
            notify(.streamEvent, session: session, appKey: appKey, sessionID: sessionID, fields: fields,
                   custom: session.hooks.custom(for: handle))
        case let .recording(notice):
            notifyRecording(notice)
        case .precall:
            // A pre-call test is no stream: no hook hears of it.
            break
        }
    }

    /// `recordingStarted`, `recordingStopped`, `recordingFailed`: the app's hooks hear of every
    /// recording, also one that ends after its publisher's session has (then without `seq`,
    /// `identity` and the handle's `custom`, which went with the session).
    private func notifyRecording(_ notice: RecordingNotice) {
        guard let event = HookEvent(rawValue: notice.type), hooks.hooks(forApp: notice.appKey) != nil else { return }
        var fields: JSONObject = ["handle": .string(notice.handle), "stream": .string(notice.stream)]
        for (key, value) in notice.data { fields[key] = MediaJSON.json(value) }
        if let session = hookSubjects[notice.session] ?? connected[notice.session] {
            notify(event, session: session, appKey: notice.appKey, sessionID: notice.session, fields: fields,
                   custom: session.hooks.custom(for: notice.handle))
            return
        }
        var body: JSONObject = ["event": .string(event.rawValue), "appKey": .string(notice.appKey),
                                "sessionId": .string(notice.session), "timestamp": JSONValue(wallClockMillis())]
        for (key, value) in fields { body[key] = value }
        body["custom"] = .object(JSONObject())
        guard let request = hooks.request(event, app: notice.appKey, body: body) else { return }
        hooks.notify(request, app: notice.appKey)
    }

    /// `streamEvent` types that reach the hooks; `resize` and `connectionQuality` do not.
    static let hookedEventTypes: Set<String> = [
        "audioMuted", "audioUnmuted", "videoMuted", "videoUnmuted", "layerChanged", "notEnoughBandwidth", "limitExceeded",
    ]

    /// The session ended after its handles' last statuses went out: `disconnect`.
    func sessionEndedForHooks(_ sessionID: SessionID) {
        guard let session = hookSubjects.removeValue(forKey: sessionID), let appKey = session.appKey else { return }
        notify(.disconnect, session: session, appKey: appKey, sessionID: sessionID, fields: [:],
               custom: session.hooks.custom)
        session.hooks.handleCustom.removeAll()
    }

    private func notify(_ event: HookEvent, session: RPCSession, appKey: String, sessionID: SessionID,
                        fields: JSONObject, custom: JSONObject?) {
        let body = hookBody(event, appKey: appKey, sessionID: sessionID, session: session, fields: fields, custom: custom)
        guard let request = hooks.request(event, app: appKey, body: body) else { return }
        hooks.notify(request, app: appKey)
    }

    /// `event`, `appKey`, `sessionId`, `seq`, `timestamp`, the method's fields, then `custom`
    /// (`{}` when the client gave none).
    func hookBody(_ event: HookEvent, appKey: String, sessionID: SessionID, session: RPCSession,
                  fields: JSONObject, custom: JSONObject?) -> JSONObject {
        var body: JSONObject = [
            "event": .string(event.rawValue),
            "appKey": .string(appKey),
            "sessionId": .string(sessionID),
        ]
        // The token's `sub`, for sessions that connected with one that has it.
        if let identity = session.identity { body["identity"] = .string(identity) }
        body["seq"] = JSONValue(session.hooks.nextSeq())
        body["timestamp"] = JSONValue(wallClockMillis())
        for (key, value) in fields { body[key] = value }
        body["custom"] = .object(custom ?? JSONObject())
        return body
    }
}

/// Stands in when no app has hooks: nothing is ever posted.
final class UnusedHookTransport: HookTransport, Sendable {
    func post(_ request: HookRequest, completion: @escaping @Sendable (HookOutcome) -> Void) {
        completion(.failed("no hook transport"))
    }
}
