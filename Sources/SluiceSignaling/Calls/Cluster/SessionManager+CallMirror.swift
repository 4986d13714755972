import SluiceCalls
import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// A node's side of calls homed elsewhere (docs/cluster.md, "Calls across nodes"): what the
/// home says arrives here (`receiveClusterCalls`, from `POST /api/v1/cluster/calls`), and what
/// this node's sessions and call media do goes to the home.
extension SessionManager {
    /// A batch from node `from` (service thread). Messages for this node's sessions and
    /// streams are carried out at once; a method, for a call of this node's book, is answered
    /// in the reply, with the messages for the asking node's own sessions.
    public func receiveClusterCalls(from node: String, _ messages: [ClusterCallMessage]) -> ClusterCallReply {
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
                        try? media.setServerMuted(stream: CallStreamName.make(callID: callID, side: side), kind: kind, muted: held)
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
        drainMediaEvents()
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
            guard notify, let target = connected[session] else { return }
            target.send(RPCMessage.notification("incomingCall", CallJSON.incomingCall(
                callID: summary.id, from: summary.caller, video: summary.video, audio: summary.audio,
                custom: summary.customJSON)))
        case let .callStatus(status, by, endResult, media):
            relay.mirrors.told(session, summary: summary, side: side, status: status, media: media, endResult: endResult)
            if status == .ended && endResult != .otherDeviceAccepted { callBook.endedElsewhere(summary.id) }
            guard notify, let target = connected[session] else { return }
            target.send(RPCMessage.notification("callStatus", CallJSON.callStatus(
                callID: summary.id, status: status, by: by, endResult: endResult, media: media)))
        }
    }

    // MARK: What this node's sessions do

    /// A method on a call this node mirrors: asked of its home; the request waits for the
    /// answer (true). False for a call this node does not mirror.
    func forwardCallMethod(_ method: String, callID: String, sdp: String?, id requestID: JSONValue,
                           session: RPCSession, sessionID: SessionID, followUp: inout FollowUp) -> Bool {
        guard let relay = callRelay, callBook.call(callID) == nil, let home = relay.mirrors.home(of: callID),
              let user = session.identity, let appKey = session.appKey else { return false }
        let token = park(session, id: requestID, label: "call \(method)") { (_: RPCSession) throws(RPCError) in
            throw .internalError("the call's node has not answered")
        }
        relay.pending[token] = ClusterCallRelay.Pending(method: method, callID: callID, sdp: sdp, session: sessionID)
        relay.ask(home, .method(name: method, callID: callID, session: sessionID, user: user, appKey: appKey),
                  token: token, wake: wakeup)
        followUp = .parked
        return true
    }

    /// The homes' answers to this node's methods (service thread).
    func finishCallMethods() {
        guard let relay = callRelay else { return }
        for line in relay.takeFailures() { log.warn(line) }
        for (token, result) in relay.takeArrivals() {
            guard let pending = relay.pending.removeValue(forKey: token) else { continue }
            var messages: [ClusterCallMessage] = []
            resumeParked(token, after: { for message in messages { apply(message, notify: true) } }) {
                (request: ParkedRequest) throws(RPCError) -> (JSONValue, FollowUp) in
                let reply: ClusterCallReply
                switch result {
                case .failure(let failure):
                    log.warn("call \(pending.callID): its node did not answer \(pending.method): \(failure.message)")
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
                var followUp = FollowUp.none
                let params = RPCParams(["stream": result["publish"]!, "sdp": .string(sdp)])
                let answer = try publish(params, id: request.id, session: request.session, sessionID: pending.session,
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
        relay.send([.media(callID: callID, side: side, playing: playing)], to: home, wake: wakeup)
        return true
    }
}
