import SluiceCalls
import SluiceControl
import SluiceJSON
import SluiceVocabulary

/// Calls across the cluster's nodes (docs/cluster.md, "Calls across nodes"). A call lives in
/// the book of its caller's node (its home). Users' sessions on every node are in each book
/// through the cluster's presence (`CallBook.syncRemote`), so the home's book rings, takes over
/// and ends with remote sessions as with its own; what it says to a remote session goes to that
/// session's node, which keeps a mirror of the call and tells its session. A remote session's
/// methods and its node's call media go back to the home. When a home dies its calls end on
/// the other nodes; when another node dies, the home's book loses its sessions at once.
extension SessionManager {
    /// Makes this node take part in calls across `cluster` (before the server starts).
    public func join(_ cluster: CallCluster) {
        callRelay = ClusterCallRelay(cluster: cluster, monoMicros: clock,
                                     endedCallMemorySeconds: config.calls.endedCallMemorySeconds)
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
                       to: node, wake: wakeup)
            return true
        case let .status(session, callID, status, by, endResult, media):
            guard let node = callBook.node(of: session), let call = callBook.call(callID),
                  let side = side(of: session, in: call) else { return false }
            relay.send([.notify(session: session, side: side, summary: summary(of: call),
                                event: .callStatus(status, by: by, endResult: endResult, media: media))], to: node, wake: wakeup)
            return true
        case let .hold(callID, held):
            for node in remoteDeviceNodes(callID) { relay.send([.hold(callID: callID, held: held)], to: node, wake: wakeup) }
            return false
        case let .endMedia(callID):
            for node in remoteDeviceNodes(callID) { relay.send([.endMedia(callID: callID)], to: node, wake: wakeup) }
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
}
