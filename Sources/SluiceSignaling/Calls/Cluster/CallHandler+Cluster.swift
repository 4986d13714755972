import SluiceCalls
import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary
import SluiceLog

/// Calls across the cluster's nodes (docs/cluster.md, "Calls across nodes"). A call lives in
/// the book of its caller's node (its home). Users' sessions on every node are in each book
/// through the cluster's presence (`CallBook.syncRemote`), so the home's book rings, takes over
/// and ends with remote sessions as with its own; what it says to a remote session goes to that
/// session's node, which keeps a mirror of the call and tells its session. A remote session's
/// methods and its node's call media go back to the home. When a home dies its calls end on
/// the other nodes; when another node dies, the home's book loses its sessions at once.
extension CallHandler {
    /// Makes this node take part in calls across `cluster` (before the server starts).
    func join(_ cluster: CallCluster) {
        callRelay = ClusterCallRelay(cluster: cluster, monoMicros: table.clock,
                                     endedCallMemorySeconds: table.config.calls.endedCallMemorySeconds)
    }

    // MARK: The home's side

    /// An effect for a session of another node: sent there. False when `session` is no
    /// remote session (the caller then treats it as its own).
    func relay(_ effect: CallEffect) -> Bool {
        guard let relay = callRelay else { return false }
        switch effect {
        case let .incomingCall(session, callID):
            guard let node = callBook.node(of: session), let call = callBook.call(callID) else { return false }
            relay.send([.notify(session: session, side: .callee, summary: summary(of: call), event: .incomingCall)],
                       to: node, wake: table.wakeup)
            return true
        case let .status(session, callID, status, by, endResult, media):
            guard let node = callBook.node(of: session), let call = callBook.call(callID),
                  let side = side(of: session, in: call) else { return false }
            relay.send([.notify(session: session, side: side, summary: summary(of: call),
                                event: .callStatus(status, by: by, endResult: endResult, media: media))], to: node, wake: table.wakeup)
            return true
        case let .hold(callID, held):
            for node in remoteDeviceNodes(callID) { relay.send([.hold(callID: callID, held: held)], to: node, wake: table.wakeup) }
            return false
        case let .endMedia(callID):
            for node in remoteDeviceNodes(callID) { relay.send([.endMedia(callID: callID)], to: node, wake: table.wakeup) }
            return false
        default:
            return false
        }
    }

    /// What every node is told of `call`: the nodes of its remote sessions now.
    func summary(of call: Call) -> CallSummary {
        let sessions = call.ringing + [call.callerSession, call.calleeSession].compactMap { $0 }
        let nodes = Set(sessions.compactMap { callBook.node(of: $0) })
        return CallSummary(call, home: callRelay?.nodeID ?? "", customJSON: callBook.custom(of: call.id),
                           nodes: nodes.sorted())
    }

    private func side(of session: SessionID, in call: Call) -> CallSide? {
        callBook.user(of: session).flatMap { call.side(of: $0.name) }
    }

    /// The nodes of the call's devices that are remote sessions.
    private func remoteDeviceNodes(_ callID: String) -> Set<String> {
        guard let call = callBook.call(callID) else { return [] }
        return Set(CallSide.allCases.compactMap { call.device($0).flatMap(callBook.node(of:)) })
    }

    // MARK: Presence

    // Presence across the cluster (docs/cluster.md, "Calls across nodes"): this node hands its
    // call users' sessions, and the calls each user is in, to the cluster's registry, and takes
    // the other nodes' into its call book once per heartbeat. A node gone from the registry loses
    // its sessions at once, and the calls homed on it end here.

    /// On each wake of the service thread (`callTick`).
    func syncClusterCalls() {
        guard let relay = callRelay else { return }
        finishCallMethods()
        let now = table.clock()
        if relay.presenceDirty || now &- relay.presenceComputedAt >= ClusterCallRelay.presenceMicros {
            relay.presenceDirty = false
            relay.presenceComputedAt = now
            publishPresence(relay)
        }
        if relay.cluster.presenceVersion != relay.takenVersion, let presence = relay.cluster.presence() {
            relay.takenVersion = presence.version
            carryOut(callBook.syncRemote(presence.sessions, liveNodes: presence.liveNodes))
            for (mirror, logs) in relay.mirrors.homesLost(liveNodes: presence.liveNodes, me: relay.nodeID) {
                endForLostHome(mirror, logs: logs)
            }
            table.drainMediaEvents()
        }
        relay.mirrors.tick()
    }

    /// This node's call users' sessions, when they changed since they were last handed over.
    private func publishPresence(_ relay: ClusterCallRelay) {
        var sessions: [RemoteSession] = []
        for (id, session) in table.connected {
            guard let name = session.identity, let appKey = session.appKey else { continue }
            let user = CallUser(appKey: appKey, name: name)
            sessions.append(RemoteSession(session: id, user: user, node: relay.nodeID,
                                          calls: callBook.activeCalls(of: user).union(relay.mirrors.activeCalls(of: id))))
        }
        sessions.sort { $0.session < $1.session }
        guard sessions != relay.publishedPresence else { return }
        relay.publishedPresence = sessions
        relay.cluster.setPresence(sessions)
    }

    /// The call's home died: it ends here `connectionLost` for this node's sessions, its streams
    /// here stop, and one node of the call (`logs`) writes the end to the log and sends the hooks.
    private func endForLostHome(_ mirror: CallMirrors.Mirror, logs: Bool) {
        let summary = mirror.summary
        callBook.endedElsewhere(summary.id)
        for session in mirror.sessions.keys.sorted() {
            table.connected[session]?.send(RPCMessage.notification("callStatus", CallJSON.callStatus(
                callID: summary.id, status: .ended, by: nil, endResult: .connectionLost, media: nil)))
        }
        stopCallStreams(summary.id)
        table.log.info("call \(summary.id) (\(summary.caller) to \(summary.callee)): ended connectionLost (node \(summary.home) lost)",
                       [.call(summary.id), .peer(summary.home)])
        guard logs else { return }
        let now = table.wallClockMillis()
        let record = CallRecord(callID: summary.id, appKey: summary.appKey, caller: summary.caller, callee: summary.callee,
                                video: summary.video, audio: summary.audio, customJSON: summary.customJSON,
                                startedAt: summary.startedAt, answeredAt: summary.answeredAt, endedAt: now,
                                durationMs: summary.answeredAt.map { max(0, now - $0) } ?? 0,
                                endResult: CallEndResult.connectionLost.rawValue, endedBy: nil)
        callLog?.write(record)
        hooks.notifyCall(.callStatus, appKey: summary.appKey, actor: nil,
                   fields: ["callId": .string(summary.id), "status": .string(CallStatus.ended.rawValue),
                            "endResult": .string(CallEndResult.connectionLost.rawValue)], custom: nil)
        var fields = CallJSON.record(record)
        fields["custom"] = nil
        hooks.notifyCall(.callEnded, appKey: summary.appKey, actor: nil, fields: fields,
                   custom: CallJSON.parsedCustom(record.customJSON).objectValue)
    }

    // MARK: The mirror: calls homed on another node

    // A node's side of calls homed elsewhere (docs/cluster.md, "Calls across nodes"): what the
    // home says arrives here (`receiveClusterCalls`, from `POST /api/v1/cluster/calls`), and what
    // this node's sessions and call media do goes to the home.

    /// A batch from node `from` (service thread). Messages for this node's sessions and
    /// streams are carried out at once; a method, for a call of this node's book, is answered
    /// in the reply, with the messages for the asking node's own sessions.
    func receiveClusterCalls(from node: String, _ messages: [ClusterCallMessage]) -> ClusterCallReply {
        guard let relay = callRelay else { return ClusterCallReply(error: .restrictedAccess) }
        var reply = ClusterCallReply()
        for message in messages {
            switch message {
            case .notify:
                apply(message, notify: true)
            case let .hold(callID, held):
                for side in CallSide.allCases {
                    for kind in [MediaKind.audio, .video] {
                        // Only a stream published here has a publisher to mute.
                        try? table.media.setServerMuted(stream: CallStreamName.make(callID: callID, side: side), kind: kind, muted: held)
                    }
                }
            case let .endMedia(callID):
                stopCallStreams(callID)
                relay.mirrors.mediaEnded(callID)
            case let .method(name, callID, session, user, appKey):
                reply = methodFromNode(node, name: name, callID: callID, session: session,
                                       user: CallUser(appKey: appKey, name: user))
            case let .media(callID, side, playing):
                carryOut(playing ? callBook.mediaPlaying(callID, side: side) : callBook.mediaFailed(callID, side: side))
            }
        }
        table.drainMediaEvents()
        return reply
    }

    /// A remote session's method on a call of this book: its effects for sessions of the
    /// asking node go back in the reply; the others are carried out here.
    private func methodFromNode(_ node: String, name: String, callID: String, session: SessionID,
                                user: CallUser) -> ClusterCallReply {
        carryOut(callBook.rememberRemote(session, user: user, node: node))
        let effects: [CallEffect]
        do throws(CallRefusal) {
            effects = try callBook.perform(name, callID, by: session)
        } catch {
            return ClusterCallReply(error: RPCError(error))
        }
        var back: [ClusterCallMessage] = []
        var here: [CallEffect] = []
        for effect in effects {
            if let message = message(effect, forNode: node) { back.append(message) } else { here.append(effect) }
        }
        carryOut(here)
        return ClusterCallReply(messages: back)
    }

    /// A notification effect for a session of `node`, as a message.
    private func message(_ effect: CallEffect, forNode node: String) -> ClusterCallMessage? {
        switch effect {
        case let .incomingCall(session, callID):
            guard callBook.node(of: session) == node, let call = callBook.call(callID) else { return nil }
            return .notify(session: session, side: .callee, summary: summary(of: call), event: .incomingCall)
        case let .status(session, callID, status, by, endResult, media):
            guard callBook.node(of: session) == node, let call = callBook.call(callID),
                  let side = callBook.user(of: session).flatMap({ call.side(of: $0.name) }) else { return nil }
            return .notify(session: session, side: side, summary: summary(of: call),
                           event: .callStatus(status, by: by, endResult: endResult, media: media))
        default:
            return nil
        }
    }

    /// A notify message: the mirror learns it, and (`notify`) this node's session is told.
    func apply(_ message: ClusterCallMessage, notify: Bool) {
        guard let relay = callRelay, case let .notify(session, side, summary, event) = message else { return }
        switch event {
        case .incomingCall:
            relay.mirrors.told(session, summary: summary, side: side, status: .ringing, media: nil)
            guard notify, let target = table.connected[session] else { return }
            target.send(RPCMessage.notification("incomingCall", CallJSON.incomingCall(
                callID: summary.id, from: summary.caller, video: summary.video, audio: summary.audio,
                custom: summary.customJSON)))
        case let .callStatus(status, by, endResult, media):
            relay.mirrors.told(session, summary: summary, side: side, status: status, media: media, endResult: endResult)
            if status == .ended && endResult != .otherDeviceAccepted { callBook.endedElsewhere(summary.id) }
            guard notify, let target = table.connected[session] else { return }
            target.send(RPCMessage.notification("callStatus", CallJSON.callStatus(
                callID: summary.id, status: status, by: by, endResult: endResult, media: media)))
        }
    }

    // MARK: What this node's sessions do

    /// A method on a call this node mirrors: asked of its home; the request waits for the
    /// answer (true). False for a call this node does not mirror.
    func forwardCallMethod(_ method: String, callID: String, sdp: String?, id requestID: JSONValue,
                           session: RPCSession, sessionID: SessionID, followUp: inout SessionManager.FollowUp) -> Bool {
        guard let relay = callRelay, callBook.call(callID) == nil, let home = relay.mirrors.home(of: callID),
              let user = session.identity, let appKey = session.appKey else { return false }
        let token = hooks.park(session, id: requestID, label: "call \(method)") { (_: RPCSession) throws(RPCError) in
            throw .internalError("the call's node has not answered")
        }
        relay.pending[token] = ClusterCallRelay.Pending(method: method, callID: callID, sdp: sdp, session: sessionID)
        relay.ask(home, .method(name: method, callID: callID, session: sessionID, user: user, appKey: appKey),
                  token: token, wake: table.wakeup)
        followUp = .parked
        return true
    }

    /// The homes' answers to this node's methods (service thread).
    func finishCallMethods() {
        guard let relay = callRelay else { return }
        for line in relay.takeFailures() { table.log.warn(line) }
        for (token, result) in relay.takeArrivals() {
            guard let pending = relay.pending.removeValue(forKey: token) else { continue }
            var messages: [ClusterCallMessage] = []
            table.resumeParked(token, after: { for message in messages { apply(message, notify: true) } }) {
                (request: ParkedRequest) throws(RPCError) -> (JSONValue, SessionManager.FollowUp) in
                let reply: ClusterCallReply
                switch result {
                case .failure(let failure):
                    table.log.warn("call \(pending.callID): its node did not answer \(pending.method): \(failure.message)",
                                   [.call(pending.callID)])
                    throw RPCError(code: RPCError.clusterUnavailable.code, message: "The call's node did not answer",
                                   reason: RPCError.clusterUnavailable.reason)
                case .success(let answer):
                    reply = answer
                }
                if let error = reply.error { throw error }
                // The mirror first (the device's right to publish), the notifications after the reply.
                messages = reply.messages
                for message in messages { apply(message, notify: false) }
                guard pending.method == "accept" else { return (.object([:]), .none) }
                let result: JSONObject = ["callId": .string(pending.callID),
                                          "publish": .string(CallStreamName.make(callID: pending.callID, side: .callee)),
                                          "play": .string(CallStreamName.make(callID: pending.callID, side: .caller))]
                guard let sdp = pending.sdp else { return (.object(result), .none) }
                var followUp = SessionManager.FollowUp.none
                let params = RPCParams(["stream": result["publish"]!, "sdp": .string(sdp)])
                let answer = try streams.publish(params, id: request.id, session: request.session, sessionID: pending.session,
                                         followUp: &followUp, merging: result)
                return (answer, followUp)
            }
        }
    }

    /// A call stream's status here, for a call homed elsewhere: to the home.
    func forwardCallMedia(_ callID: String, side: CallSide, playing: Bool) -> Bool {
        guard let relay = callRelay, callBook.call(callID) == nil, let home = relay.mirrors.home(of: callID) else {
            return false
        }
        relay.send([.media(callID: callID, side: side, playing: playing)], to: home, wake: table.wakeup)
        return true
    }
}
