import SluiceCalls
import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary
import SluiceLog

/// Carrying out what the call machine decided: notifications, the log, the call streams'
/// hold and end, and hooks; and feeding it sessions, media statuses and time.
extension CallHandler {
    /// Each effect in order. Media calls made here queue media events, which the caller drains.
    func carryOut(_ effects: [CallEffect]) {
        if !effects.isEmpty { callRelay?.presenceDirty = true }
        for effect in effects {
            switch effect {
            case let .incomingCall(sessionID, callID):
                guard let target = table.connected[sessionID], let call = callBook.call(callID) else { _ = relay(effect); continue }
                target.send(RPCMessage.notification("incomingCall", CallJSON.incomingCall(call, custom: callBook.custom(of: callID))))
            case let .status(sessionID, callID, status, by, endResult, side):
                guard let target = table.connected[sessionID], let call = callBook.call(callID) else { _ = relay(effect); continue }
                target.send(RPCMessage.notification("callStatus", CallJSON.callStatus(
                    call, status: status, by: by, endResult: endResult, media: side)))
            case .write(let record):
                callLog?.write(record)
                if let result = record.endResult {
                    table.log.info("call \(record.callID) (\(record.caller) to \(record.callee)): ended \(result)"
                                   + (record.endedBy.map { " by \($0)" } ?? ""), [.call(record.callID)])
                }
            case let .hold(callID, held):
                guard let call = callBook.call(callID) else { continue }
                for side in CallSide.allCases {
                    for kind in [MediaKind.audio, .video] {
                        // A stream not published here (yet) has nothing to stop: its node's does.
                        try? table.media.setServerMuted(stream: call.stream(side), kind: kind, muted: held)
                    }
                }
                _ = relay(effect)
            case .endMedia(let callID):
                stopCallStreams(callID)
                _ = relay(effect)
            case let .hookStarted(callID, actor):
                guard let call = callBook.call(callID) else { continue }
                hooks.notifyCall(.callStarted, call: call, actor: actor,
                                 fields: ["callId": .string(callID), "from": .string(call.caller), "to": .string(call.callee),
                                          "video": .bool(call.video), "audio": .bool(call.audio)],
                                 custom: CallJSON.parsedCustom(callBook.custom(of: callID)).objectValue)
            case let .hookStatus(callID, status, by, endResult, actor):
                guard let call = callBook.call(callID) else { continue }
                var fields: JSONObject = ["callId": .string(callID), "status": .string(status.rawValue)]
                if let by { fields["by"] = .string(by) }
                if let endResult { fields["endResult"] = .string(endResult.rawValue) }
                hooks.notifyCall(.callStatus, call: call, actor: actor, fields: fields, custom: nil)
            case let .hookEnded(record, actor):
                guard let call = callBook.call(record.callID) else { continue }
                var fields = CallJSON.record(record)
                fields["custom"] = nil
                hooks.notifyCall(.callEnded, call: call, actor: actor, fields: fields,
                                 custom: CallJSON.parsedCustom(record.customJSON).objectValue)
            }
        }
    }

    /// The call ended: the handles of its two streams on this node stop, whoever has them.
    func stopCallStreams(_ callID: String) {
        let names: Set<String> = [CallStreamName.make(callID: callID, side: .caller),
                                  CallStreamName.make(callID: callID, side: .callee)]
        for session in table.connectedSessions {
            for (handle, record) in session.handles where names.contains(record.stream) {
                try? table.media.stop(handle: handle)
                session.handles[handle] = nil
            }
        }
    }

    /// After the reply: the call effects the request queued.
    func carryOutAfterReply() {
        guard !afterReply.isEmpty else { return }
        let queued = afterReply
        afterReply.removeAll()
        for effects in queued { carryOut(effects) }
    }

    /// A media status of a call stream: both players playing connect the call; a failed
    /// handle loses its side. Collected while the engine's events are delivered.
    func noteCallMedia(_ event: MediaEvent) {
        guard case let .streamStatus(_, _, stream, role, status, _, _) = event,
              let (callID, side) = CallStreamName.parse(stream) else { return }
        // The player of a side's stream is the other side.
        let actor = role == .publish ? side : side.other
        switch status {
        case .playing where role == .play:
            if forwardCallMedia(callID, side: actor, playing: true) { return }
            mediaCallEffects += callBook.mediaPlaying(callID, side: actor)
        case .failed:
            if forwardCallMedia(callID, side: actor, playing: false) { return }
            mediaCallEffects += callBook.mediaFailed(callID, side: actor)
        default:
            break
        }
    }

    /// Outside the engine's drain (they may stop or mute call streams, which queues more
    /// events): the effects of the media statuses just delivered. False when there were none.
    func carryOutMediaEffects() -> Bool {
        guard !mediaCallEffects.isEmpty else { return false }
        let effects = mediaCallEffects
        mediaCallEffects.removeAll()
        carryOut(effects)
        return true
    }

    /// The session connected with a user: it is online for calls, and takes over a call of
    /// its user that waits for a lost device. After `ESTABLISHED`.
    func sessionEstablished(_ session: RPCSession) {
        guard let id = session.sessionID, let user = session.identity, let appKey = session.appKey else { return }
        callRelay?.presenceDirty = true
        carryOut(callBook.sessionOnline(id, user: CallUser(appKey: appKey, name: user)))
        table.drainMediaEvents()
    }

    /// The session ended: its calls wait for it to come back, or end.
    func sessionEnded(_ id: SessionID) {
        carryOut(callBook.sessionOffline(id))
        callRelay?.mirrors.sessionEnded(id)
        callRelay?.presenceDirty = true
    }

    /// The service thread's periodic wake: ring timeouts and lost devices; in a cluster, the
    /// other nodes' answers, this node's presence, and the cluster's.
    func tick() {
        syncClusterCalls()
        let effects = callBook.tick()
        guard !effects.isEmpty else { return }
        carryOut(effects)
        table.drainMediaEvents()
    }

    /// Shutdown: every call ends `unknown`, before the sessions end.
    func endCallsForShutdown() {
        carryOut(callBook.shutdown())
    }
}
