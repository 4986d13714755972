import SluiceCalls
import SluiceJSON
import SluiceVocabulary
import SluiceLog

/// The call methods of docs/protocol.md section 6, "Calls": params here, the rules in
/// SluiceCalls' `CallBook`, its effects in CallHandler+Effects.swift, and calls across a
/// cluster's nodes in Cluster/CallHandler+Cluster.swift.
final class CallHandler {
    let table: SessionTable
    let hooks: HookHandler
    /// `accept` with an `sdp` publishes the callee's stream through it.
    let streams: StreamHandler
    /// Users online and their calls (docs/protocol.md section 6, "Calls").
    let callBook: CallBook
    /// Where calls are logged; nil keeps no log (`calls.database` empty). Set before the
    /// server starts.
    var callLog: CallLogStore?
    /// Call effects a request queued, carried out after its reply.
    var afterReply: [[CallEffect]] = []
    /// Call effects of media statuses, carried out after the engine's events are delivered.
    var mediaCallEffects: [CallEffect] = []
    /// Calls across the cluster's nodes (Calls/Cluster/); nil on a single node or without
    /// `cluster.secret`. Set with `join(_:)` before the server starts.
    var callRelay: ClusterCallRelay?

    init(table: SessionTable, hooks: HookHandler, streams: StreamHandler) {
        self.table = table
        self.hooks = hooks
        self.streams = streams
        callBook = CallBook(settings: table.config.calls, wallMillis: table.wallClockMillis, monoMicros: table.clock)
    }

    static let methods: Set<String> = ["call", "accept", "decline", "hangup", "hold", "unhold", "callLog", "onlineUsers"]

    func callMethod(_ method: String, _ params: RPCParams, id requestID: JSONValue, session: RPCSession,
                    sessionID: SessionID, followUp: inout SessionManager.FollowUp) throws(RPCError) -> JSONValue {
        let app = table.app(of: session)
        switch method {
        case "call":
            let to = try CallParams.user(params, "to", required: true)!
            let video = try params.optionalBool("video", default: true)
            let audio = try params.optionalBool("audio", default: true)
            let custom = try params.optionalObject("custom")
            try requireCalls(app, session)
            let made: (callID: String, effects: [CallEffect])
            do throws(CallRefusal) {
                made = try callBook.call(from: sessionID, to: to, video: video, audio: audio,
                                         custom: custom.map { JSONValue.object($0).serialized() } ?? "{}",
                                         callWaiting: app?.calls.callWaiting ?? false)
            } catch {
                throw RPCError(error)
            }
            table.log.info("session \(sessionID): \(session.identity ?? "") calls \(to): call \(made.callID)",
                           session.logFields + [.call(made.callID)])
            // The reply goes first; the call's notifications follow it.
            afterReply.append(made.effects)
            return ["callId": .string(made.callID)]
        case "accept":
            let callID = try CallParams.callID(params)
            let sdp = try params.optionalString("sdp")
            if let sdp, sdp.isEmpty { throw .invalidParams("'sdp' must not be empty") }
            try requireCalls(app, session)
            if forwardCallMethod(method, callID: callID, sdp: sdp, id: requestID, session: session,
                                 sessionID: sessionID, followUp: &followUp) { return .null }
            let effects: [CallEffect]
            do throws(CallRefusal) { effects = try callBook.accept(callID, by: sessionID) } catch { throw RPCError(error) }
            guard let call = callBook.call(callID) else { throw .unknownCall }
            let result: JSONObject = ["callId": .string(callID), "publish": .string(call.stream(.callee)),
                                      "play": .string(call.stream(.caller))]
            afterReply.append(effects)
            if let sdp {
                // The callee's publish, made in the same request: as a `publish` of its stream.
                let publishParams = RPCParams(["stream": .string(call.stream(.callee)), "sdp": .string(sdp)])
                return try streams.publish(publishParams, id: requestID, session: session, sessionID: sessionID,
                                           followUp: &followUp, merging: result)
            }
            return .object(result)
        case "decline", "hangup", "hold", "unhold":
            let callID = try CallParams.callID(params)
            try requireCalls(app, session)
            if forwardCallMethod(method, callID: callID, sdp: nil, id: requestID, session: session,
                                 sessionID: sessionID, followUp: &followUp) { return .null }
            let effects: [CallEffect]
            do throws(CallRefusal) {
                effects = try callBook.perform(method, callID, by: sessionID)
            } catch {
                throw RPCError(error)
            }
            afterReply.append(effects)
            return [:]
        case "callLog":
            var query = try CallParams.logQuery(params, maxLimit: 100, defaultLimit: 20)
            try requireCalls(app, session)
            guard let user = session.identity else { throw .identityRequired }
            guard let callLog else { throw .callLogOff }
            query.appKey = session.appKey
            query.user = user
            // A local file answers inside the call; a database across the network answers from a
            // thread of its own: then the request waits for the page (the session's next ones
            // behind it), and the service thread is never held.
            let answer = InlineOrLater<Result<CallLogPage, CallLogError>>()
            // The token the page will resume, known before any later answer is handled: that
            // runs on this thread, after this request.
            let token = hooks.nextToken
            // Carried by the reader's thread only to be handed back: `runOnServiceThread` is safe
            // from any thread, and the work runs on the service thread.
            nonisolated(unsafe) weak let handler = self
            callLog.query(query) { result in
                guard !answer.answeredInline(result) else { return }
                handler?.table.runOnServiceThread { [weak handler] in
                    guard let self = handler else { return }
                    self.table.resumeParked(token) { (_: ParkedRequest) throws(RPCError) -> (JSONValue, SessionManager.FollowUp) in
                        (try self.callLogPage(result), .none)
                    }
                }
            }
            if let result = answer.returned() { return try callLogPage(result) }
            let parked = hooks.park(session, id: requestID, label: "callLog") { (_: RPCSession) throws(RPCError) in
                throw .internalError("the call log has not answered")
            }
            assert(parked == token)
            followUp = .parked
            return .null
        case "onlineUsers":
            try requireCalls(app, session)
            return ["users": .array(callBook.onlineUsers(appKey: session.appKey ?? "").map { .string($0) })]
        default:
            throw .methodNotFound(method)
        }
    }

    private func callLogPage(_ result: Result<CallLogPage, CallLogError>) throws(RPCError) -> JSONValue {
        switch result {
        case .success(let page):
            return .object(CallJSON.page(page))
        case .failure(let error):
            table.log.warn("call log: \(error.message)")
            throw .internalError("the call log could not be read")
        }
    }

    /// 1002 for an app with calls off, 1016 for a session without a user.
    private func requireCalls(_ app: SignalingConfig.App?, _ session: RPCSession) throws(RPCError) {
        if let app, !app.calls.enabled { throw .restrictedAccess }
        if session.identity == nil { throw .identityRequired }
    }

    /// Publish and play of a reserved call name: the call's devices only (1012 otherwise).
    /// True when the name is a call's, so that the token's grants do not apply.
    func checkCallStream(_ stream: String, publish: Bool, sessionID: SessionID) throws(RPCError) -> Bool {
        guard CallStreamName.isReserved(stream) else { return false }
        guard callBook.mayUse(stream: stream, publish: publish, session: sessionID)
                || callRelay?.mirrors.mayUse(stream: stream, publish: publish, session: sessionID) == true else {
            throw .notGranted("\(publish ? "publish" : "play") of '\(stream)': a call's stream is its parties' alone")
        }
        return true
    }
}
