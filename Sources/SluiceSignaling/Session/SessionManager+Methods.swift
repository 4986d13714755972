import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// The JSON-RPC methods of docs/protocol.md section 2, after admission; `connect`, `publish`
/// and `play` have files of their own.
extension SessionManager {
    /// Checks in the order of docs/protocol.md "Which error wins": not connected (1000), unknown
    /// method (-32601), then params (-32602) and the method's own errors.
    func dispatch(id: JSONValue, method: String, params: RPCParams, session: RPCSession,
                          followUp: inout FollowUp) throws(RPCError) -> JSONValue {
        if method != "connect" && session.sessionID == nil { throw .notConnected }
        guard Self.methods.contains(method) else { throw .methodNotFound(method) }
        try params.requireNamed()
        if method == "connect" {
            return try connect(params, id: id, session: session, followUp: &followUp)
        }
        guard let sessionID = session.sessionID else { throw .notConnected }
        if Self.callMethods.contains(method) {
            return try callMethod(method, params, id: id, session: session, sessionID: sessionID, followUp: &followUp)
        }
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
                return MediaJSON.stats(try media.stats(handle: handle), identity: session.identity,
                                       dataChannels: media.dataChannelStats(handle: handle))
            } catch {
                if error == .unknownHandle { session.handles[handle] = nil }
                throw RPCError(error)
            }
        case "precall":
            return try precall(params, session: session, sessionID: sessionID)
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
    static let methods: Set<String> = Set(["connect", "publish", "play", "update", "mute", "unmute", "stop", "getStats",
                                           "muteStream", "unmuteStream", "ping", "disconnect", "precall"])
        .union(callMethods)

    private func requireHandle(_ handle: StreamHandle, of session: RPCSession) throws(RPCError) {
        guard session.handles[handle] != nil else { throw .unknownHandle }
    }

    func requireHandleCapacity(_ session: RPCSession) throws(RPCError) {
        guard session.handles.count < config.maxHandlesPerSession else { throw .limitReached("handles per session") }
    }
}
