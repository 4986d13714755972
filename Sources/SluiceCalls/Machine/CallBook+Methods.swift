import SluiceVocabulary

/// The call methods: `call`, `accept`, `decline`, `hangup`, `hold`, `unhold`. Each checks who
/// asks and in which state, in the order of docs/protocol.md section 6, "Calls".
extension CallBook {
    /// `call {to}`. Returns the new call's id with its effects: `noAnswer` or `busy` end it at
    /// once; otherwise the callee's sessions ring.
    public func call(from session: SessionID, to callee: String, video: Bool, audio: Bool, custom: String = "{}",
                     callWaiting: Bool = false) throws(CallRefusal) -> (callID: String, effects: [CallEffect]) {
        guard let caller = userOf[session] else { throw .identityRequired }
        guard callee != caller.name else { throw .callingSelf }
        let now = monoMicros()
        var recent = (recentCalls[session] ?? []).filter { now &- $0 < 60_000_000 }
        guard recent.count < settings.perMinute else { throw .rateLimited }
        if !callWaiting && (!(activeCalls[caller] ?? []).isEmpty || isBusyElsewhere(caller)) {
            throw .wrongState("the caller is in another call")
        }
        recent.append(now)
        recentCalls[session] = recent
        var id = makeCallID()
        while calls[id] != nil { id = CallBook.randomCallID() }
        let target = CallUser(appKey: caller.appKey, name: callee)
        var call = Call(id: id, appKey: caller.appKey, caller: caller.name, callee: callee, video: video, audio: audio,
                        callerSession: session, startedAt: wallMillis(),
                        ringDeadline: now + UInt64(settings.ringTimeoutSeconds) * 1_000_000)
        let sessions = online[target] ?? []
        calls[id] = call
        customJSON[id] = custom
        activeCalls[caller, default: []].insert(id)
        var effects: [CallEffect] = [.write(call.record(customJSON: custom)), .hookStarted(callID: id, actor: session)]
        if sessions.isEmpty {
            effects += end(id, .noAnswer, by: nil, actor: session)
            return (id, effects)
        }
        if !callWaiting && (!(activeCalls[target] ?? []).isEmpty || isBusyElsewhere(target)) {
            effects += end(id, .busy, by: nil, actor: session)
            return (id, effects)
        }
        activeCalls[target, default: []].insert(id)
        call.ringing = sessions
        calls[id] = call
        effects += sessions.map { .incomingCall(session: $0, callID: id) }
        effects.append(.status(session: session, callID: id, status: .ringing, by: nil, endResult: nil, media: nil))
        effects.append(.hookStatus(callID: id, status: .ringing, by: nil, endResult: nil, actor: session))
        return (id, effects)
    }

    /// `accept`: the callee, while ringing. That session becomes its device; the others stop ringing.
    public func accept(_ id: String, by session: SessionID) throws(CallRefusal) -> [CallEffect] {
        var (call, side) = try party(id, session)
        guard side == .callee else { throw .wrongState("only the callee accepts") }
        guard call.status == .ringing else { throw .wrongState("the call is not ringing") }
        call.status = .connecting
        call.calleeSession = session
        call.answeredAt = wallMillis()
        let others = call.ringing.filter { $0 != session }
        call.ringing = []
        calls[id] = call
        var effects: [CallEffect] = others.map {
            .status(session: $0, callID: id, status: .ended, by: call.callee, endResult: .otherDeviceAccepted, media: nil)
        }
        effects.append(.write(call.record(customJSON: custom(of: id))))
        effects += tellBoth(call, .connecting, by: call.callee, media: true)
        effects.append(.hookStatus(callID: id, status: .connecting, by: call.callee, endResult: nil, actor: session))
        return effects
    }

    /// `decline`: the callee, while ringing.
    public func decline(_ id: String, by session: SessionID) throws(CallRefusal) -> [CallEffect] {
        let (call, side) = try party(id, session)
        guard side == .callee else { throw .wrongState("only the callee declines") }
        guard call.status == .ringing else { throw .wrongState("the call is not ringing") }
        return end(id, .declined, by: call.callee, actor: session)
    }

    /// `hangup`: either party, before the end: canceled, declined or completed.
    public func hangup(_ id: String, by session: SessionID) throws(CallRefusal) -> [CallEffect] {
        let (call, side) = try party(id, session)
        // Only a side's device speaks for it: the caller's calling session, the callee's
        // accepting one (any ringing one before that).
        if side == .caller && call.callerSession != session {
            throw .wrongState("this session is not the call's device")
        }
        if side == .callee && (call.wasAccepted ? call.calleeSession != session : !call.ringing.contains(session)) {
            throw .wrongState("this session is not the call's device")
        }
        let result: CallEndResult = call.wasAccepted ? .completed : (side == .caller ? .canceled : .declined)
        return end(id, result, by: call.user(side), actor: session)
    }

    /// `hold`: either party while connected (or held by the other).
    public func hold(_ id: String, by session: SessionID) throws(CallRefusal) -> [CallEffect] {
        var (call, side) = try party(id, session)
        try requireDevice(call, side, session)
        guard call.status == .connected || call.status == .onHold else { throw .wrongState("the call is not connected") }
        guard !call.holds.contains(side) else { throw .wrongState("the call is on hold by this side already") }
        let wasHeld = !call.holds.isEmpty
        call.holds.insert(side)
        call.status = .onHold
        calls[id] = call
        var effects: [CallEffect] = wasHeld ? [] : [.hold(callID: id, held: true)]
        effects += tellBoth(call, .onHold, by: call.user(side), media: false)
        effects.append(.hookStatus(callID: id, status: .onHold, by: call.user(side), endResult: nil, actor: session))
        return effects
    }

    /// `unhold`: the side that held. The call is connected again when no hold is left.
    public func unhold(_ id: String, by session: SessionID) throws(CallRefusal) -> [CallEffect] {
        var (call, side) = try party(id, session)
        try requireDevice(call, side, session)
        guard call.status == .onHold, call.holds.contains(side) else { throw .wrongState("the call is not on hold by this side") }
        call.holds.remove(side)
        guard call.holds.isEmpty else {
            calls[id] = call
            return []
        }
        call.status = .connected
        calls[id] = call
        var effects: [CallEffect] = [.hold(callID: id, held: false)]
        effects += tellBoth(call, .connected, by: call.user(side), media: false)
        effects.append(.hookStatus(callID: id, status: .connected, by: call.user(side), endResult: nil, actor: session))
        return effects
    }

    /// The method named `name` (`accept`, `decline`, `hangup`, `hold`, `unhold`) of `session`
    /// on call `id`: for a caller that has the method's name, as the session layer and another
    /// node's message do.
    public func perform(_ name: String, _ id: String, by session: SessionID) throws(CallRefusal) -> [CallEffect] {
        switch name {
        case "accept": return try accept(id, by: session)
        case "decline": return try decline(id, by: session)
        case "hangup": return try hangup(id, by: session)
        case "hold": return try hold(id, by: session)
        default: return try unhold(id, by: session)
        }
    }

    // MARK: Checks

    /// The call and the side of the session's user: 1014 for a stranger or an unknown call,
    /// 1015 once it ended.
    func party(_ id: String, _ session: SessionID) throws(CallRefusal) -> (Call, CallSide) {
        guard let user = userOf[session] else { throw .identityRequired }
        guard let call = calls[id], call.appKey == user.appKey, let side = call.side(of: user.name) else {
            throw .unknownCall
        }
        guard !call.hasEnded else { throw .wrongState("the call has ended") }
        return (call, side)
    }

    /// After `accept`, only a side's device acts for it.
    func requireDevice(_ call: Call, _ side: CallSide, _ session: SessionID) throws(CallRefusal) {
        guard call.device(side) == session else { throw .wrongState("this session is not the call's device") }
    }

    /// `callStatus` to both devices (those that are there).
    func tellBoth(_ call: Call, _ status: CallStatus, by: String?, media: Bool) -> [CallEffect] {
        CallSide.allCases.compactMap { side in
            call.device(side).map {
                .status(session: $0, callID: call.id, status: status, by: by, endResult: nil, media: media ? side : nil)
            }
        }
    }
}
