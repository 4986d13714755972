import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary
import SluiceLog

/// Authorizing hooks park their request (docs/protocol.md section 4): the reply waits for the
/// backend, and everything the session sends meanwhile waits behind it. Other sessions are
/// not affected. This handler owns the parked requests and the hooks' subjects; the manager
/// resumes a parked request (`SessionManager.resumeParked`), since what follows a reply
/// crosses every feature. Notification hooks are in HookHandler+Notify.swift.
final class HookHandler {
    /// The apps' status callbacks (docs/protocol.md section 4).
    let dispatcher: HookDispatcher
    let table: SessionTable
    /// Requests waiting for an authorizing hook (or another node, or the call log), by token.
    private(set) var parked: [UInt64: ParkedRequest] = [:]
    /// The token the next parked request gets.
    private(set) var nextToken: UInt64 = 1
    /// Sessions of apps with hooks, from `connect` until their `disconnect` hook is queued.
    var subjects: [SessionID: RPCSession] = [:]

    init(table: SessionTable, dispatcher: HookDispatcher) {
        self.table = table
        self.dispatcher = dispatcher
    }

    /// Whether the app of `appKey` has hooks.
    func hasHooks(app appKey: String?) -> Bool {
        appKey.flatMap { dispatcher.hooks(forApp: $0) } != nil
    }

    func park(_ session: RPCSession, id: JSONValue, event: HookEvent, appKey: String, sessionID: SessionID,
              fields: JSONObject, custom: JSONObject?,
              finish: @escaping (RPCSession) throws(RPCError) -> (JSONValue, SessionManager.FollowUp)) {
        let body = hookBody(event, appKey: appKey, sessionID: sessionID, session: session, fields: fields, custom: custom)
        guard let request = dispatcher.request(event, app: appKey, body: body) else { return }
        let token = park(session, id: id, label: event.rawValue, finish: finish)
        table.log.debug("connection \(session.connectionID): \(event.rawValue) waits for \(request.url)", session.logFields)
        dispatcher.authorize(request, token: token)
    }

    /// Parks the request `id` of `session` until `resumeParked(token)`: its reply waits, and
    /// what the session sends meanwhile waits behind it.
    func park(_ session: RPCSession, id: JSONValue, label: String,
              finish: @escaping (RPCSession) throws(RPCError) -> (JSONValue, SessionManager.FollowUp)) -> UInt64 {
        let token = nextToken
        nextToken += 1
        parked[token] = ParkedRequest(session: session, id: id, label: label, finish: finish)
        session.hooks.parkedToken = token
        return token
    }

    /// Ends the wait of a parked request; nil when it is gone (its session closed meanwhile).
    func takeParked(_ token: UInt64) -> ParkedRequest? {
        guard let request = parked.removeValue(forKey: token) else { return nil }
        request.session.hooks.parkedToken = nil
        return request
    }

    func queueBehindParked(_ incoming: SessionManager.Incoming, from session: RPCSession) {
        guard session.hooks.backlog.count < SessionHookState.backlogLimit else {
            var replyID: JSONValue? = .null
            if case .text(let bytes) = incoming { replyID = RPCEnvelope.replyID(for: bytes) }
            if let replyID { table.reject(session, id: replyID, .limitReached("requests waiting for a hook")) }
            return
        }
        switch incoming {
        case .text(let bytes): session.hooks.backlog.append(.text(Array(bytes)))
        case .oversized(let count): session.hooks.backlog.append(.oversized(count))
        case .binary: session.hooks.backlog.append(.binary)
        }
    }

    /// The session is closing: its parked request and backlog are forgotten.
    func dropParked(_ session: RPCSession) {
        if let token = session.hooks.parkedToken {
            parked[token] = nil
            session.hooks.parkedToken = nil
            table.log.debug("connection \(session.connectionID): closed while waiting for a hook; request dropped",
                            session.logFields)
        }
        session.hooks.backlog.removeAll()
    }
}

/// Stands in when no app has hooks: nothing is ever posted.
final class UnusedHookTransport: HookTransport, Sendable {
    func post(_ request: HookRequest, completion: @escaping @Sendable (HookOutcome) -> Void) {
        completion(.failed("no hook transport"))
    }
}
