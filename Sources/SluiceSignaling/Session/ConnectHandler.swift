import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary
import SluiceLog

/// `connect`: access (app key or token, Auth/ConnectHandler+Access.swift), the session limit,
/// the connect hook, and the session's establishment with its ICE servers.
final class ConnectHandler {
    let table: SessionTable
    let hooks: HookHandler
    let makeSessionID: () -> SessionID

    init(table: SessionTable, hooks: HookHandler, makeSessionID: @escaping () -> SessionID) {
        self.table = table
        self.hooks = hooks
        self.makeSessionID = makeSessionID
    }

    func connect(_ params: RPCParams, id requestID: JSONValue, session: RPCSession,
                 followUp: inout SessionManager.FollowUp) throws(RPCError) -> JSONValue {
        let config = table.config
        // A second connect is a state error of the request itself, like 1000 before connect.
        guard session.sessionID == nil else { throw .invalidRequest("the session is already connected") }
        try table.refuseWhileDraining()
        let token = try params.optionalString("token")
        // With a token the app key may be left out: the token's `iss` names the app.
        let givenKey = token == nil ? try params.requiredString("appKey") : try params.optionalString("appKey")
        let custom = try params.optionalObject("custom")
        let user = try CallParams.user(params, "user", required: false)
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
        if let user {
            if let sub = access.identity {
                guard sub == user else { throw .invalidParams("'user' differs from the token's sub") }
            } else if config.app(withKey: appKey)?.trustClientUser != true {
                throw .invalidParams("'user' is not accepted by this app: its users come from tokens (apps[].trustClientUser)")
            }
        }
        guard table.connected.count < config.maxSessions else { throw .limitReached("sessions") }
        // Before the connect hook, whose body carries the identity.
        session.identity = access.identity ?? user
        session.grants = access.grants
        var id = makeSessionID()
        while table.connected[id] != nil { id = SessionManager.randomSessionID() }
        session.hooks.custom = custom
        if hooks.hasHooks(app: appKey) {
            hooks.park(session, id: requestID, event: .connect, appKey: appKey, sessionID: id, fields: [:],
                       custom: custom) { [unowned self] session throws(RPCError) in
                // Others may have connected while the hook ran, or a drain begun.
                try table.refuseWhileDraining()
                guard table.connected.count < config.maxSessions else { throw .limitReached("sessions") }
                guard table.connected[id] == nil else { throw .internalError("session id taken") }
                hooks.subjects[id] = session
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
        table.connected[id] = session
        table.log.info("connection \(session.connectionID): session \(id) connected with app key \(appKey)"
                       + (session.identity.map { " as \"\($0)\"" } ?? ""), session.logFields)
        var result: JSONObject = ["sessionId": .string(id), "serverVersion": .string(table.config.serverVersion),
                                  "iceServers": iceServers(user: id)]
        if let identity = session.identity { result["identity"] = .string(identity) }
        return .object(result)
    }

    /// `connect`'s `iceServers`: each configured TURN server with a fresh credential whose
    /// user part is `user` (the session id; an identity from a token fits as well). coturn logs
    /// that name with each allocation, so a relay's traffic can be traced to its session.
    func iceServers(user: String) -> JSONValue {
        let now = table.wallClockMillis() / 1000
        return .array(table.config.turnServers.map { $0.iceServer(user: user, nowSeconds: now) })
    }
}
