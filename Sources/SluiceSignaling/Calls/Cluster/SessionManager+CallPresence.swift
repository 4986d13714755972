import SluiceCalls
import SluiceJSON
import SluiceVocabulary

/// Presence across the cluster (docs/cluster.md, "Calls across nodes"): this node hands its
/// call users' sessions, and the calls each user is in, to the cluster's registry, and takes
/// the other nodes' into its call book once per heartbeat. A node gone from the registry loses
/// its sessions at once, and the calls homed on it end here.
extension SessionManager {
    /// On each wake of the service thread (`callTick`).
    func syncClusterCalls() {
        guard let relay = callRelay else { return }
        finishCallMethods()
        let now = clock()
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
            drainMediaEvents()
        }
        relay.mirrors.tick()
    }

    /// This node's call users' sessions, when they changed since they were last handed over.
    private func publishPresence(_ relay: ClusterCallRelay) {
        var sessions: [RemoteSession] = []
        for (id, session) in connected {
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
            connected[session]?.send(RPCMessage.notification("callStatus", CallJSON.callStatus(
                callID: summary.id, status: .ended, by: nil, endResult: .connectionLost, media: nil)))
        }
        stopCallStreams(summary.id)
        log.info("call \(summary.id) (\(summary.caller) to \(summary.callee)): ended connectionLost (node \(summary.home) lost)")
        guard logs else { return }
        let now = wallClockMillis()
        let record = CallRecord(callID: summary.id, appKey: summary.appKey, caller: summary.caller, callee: summary.callee,
                                video: summary.video, audio: summary.audio, customJSON: summary.customJSON,
                                startedAt: summary.startedAt, answeredAt: summary.answeredAt, endedAt: now,
                                durationMs: summary.answeredAt.map { max(0, now - $0) } ?? 0,
                                endResult: CallEndResult.connectionLost.rawValue, endedBy: nil)
        callLog?.write(record)
        notifyCall(.callStatus, appKey: summary.appKey, actor: nil,
                   fields: ["callId": .string(summary.id), "status": .string(CallStatus.ended.rawValue),
                            "endResult": .string(CallEndResult.connectionLost.rawValue)], custom: nil)
        var fields = CallJSON.record(record)
        fields["custom"] = nil
        notifyCall(.callEnded, appKey: summary.appKey, actor: nil, fields: fields,
                   custom: CallJSON.parsedCustom(record.customJSON).objectValue)
    }
}
