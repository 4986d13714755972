import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary
import SluiceLog

/// The JSON-RPC methods of docs/protocol.md section 2, after admission, each routed to the
/// handler of its feature; and the engine's media events, which every feature hears.
extension SessionManager {
    /// Checks in the order of docs/protocol.md "Which error wins": not connected (1000), unknown
    /// method (-32601), then params (-32602) and the method's own errors.
    func dispatch(id: JSONValue, method: String, params: RPCParams, session: RPCSession,
                  followUp: inout FollowUp) throws(RPCError) -> JSONValue {
        if method != "connect" && session.sessionID == nil { throw .notConnected }
        guard Self.methods.contains(method) else { throw .methodNotFound(method) }
        try params.requireNamed()
        if method == "connect" {
            return try connects.connect(params, id: id, session: session, followUp: &followUp)
        }
        guard let sessionID = session.sessionID else { throw .notConnected }
        if CallHandler.methods.contains(method) {
            return try calls.callMethod(method, params, id: id, session: session, sessionID: sessionID, followUp: &followUp)
        }
        switch method {
        case "publish":
            return try streams.publish(params, id: id, session: session, sessionID: sessionID, followUp: &followUp)
        case "play":
            return try streams.play(params, id: id, session: session, sessionID: sessionID, followUp: &followUp)
        case "update":
            return try streams.update(params, session: session)
        case "mute", "unmute":
            return try streams.setMuted(params, muted: method == "mute", session: session)
        case "stop":
            return try streams.stop(params, session: session)
        case "getStats":
            return try streams.stats(params, session: session)
        case "precall":
            return try precalls.precall(params, session: session, sessionID: sessionID)
        case "muteStream", "unmuteStream":
            return try moderation.moderateMute(params, muted: method == "muteStream", session: session)
        case "speakers":
            return try speakers.speakers(params, session: session, sessionID: sessionID)
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
    static let methods: Set<String> = Set(["connect", "publish", "play", "update", "mute", "unmute", "stop", "getStats",
                                           "muteStream", "unmuteStream", "ping", "disconnect", "precall", "speakers"])
        .union(CallHandler.methods)

    // MARK: Media events

    /// Delivers every queued media event to the session that owns its handle, after the
    /// cluster's names, the calls and the hooks have heard of it.
    public func drainMediaEvents() {
        media.drainEvents { event in
            if case let .streamStatus(session, handle, stream, role, status, info, _) = event {
                // One line per status change: the server's record of every stream's life.
                let line = "stream \(stream) \(role.rawValue) \(handle) (session \(session)): \(status.rawValue)"
                    + (info.map { " \"\($0)\"" } ?? "")
                let fields: [LogField] = [.session(session), .stream(stream), .handle("\(handle)")]
                if status == .failed { log.warn(line, fields) } else { log.info(line, fields) }
            }
            if case .streamEvent(_, _, _, "layerChanged", _, _) = event { layerSwitches &+= 1 }
            streams.releaseName(after: event)
            calls.noteCallMedia(event)
            hookHandler.notifyHooks(of: event)
            speakers.note(event)
            streams.deliver(event)
        }
        // Outside the engine's drain: these may stop or mute call streams, which queues more.
        if calls.carryOutMediaEffects() {
            drainMediaEvents()
        }
    }

    /// The service thread's periodic wake: work other threads handed over, then the calls'
    /// timers (ring timeouts, lost devices, the cluster's answers and presence).
    public func callTick() {
        for work in table.serviceInbox.take() { work() }
        calls.tick()
        speakers.tick()
    }
}
