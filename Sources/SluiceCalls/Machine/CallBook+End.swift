import SluiceVocabulary

/// Ending a call, and the timers that end calls: the ring timeout, the reconnect wait, and
/// forgetting ended calls.
extension CallBook {
    /// Ends the call once: `ENDED` to its devices (or, before `accept`, to every ringing
    /// session), its record, its media stopped, and its hooks.
    func end(_ id: String, _ result: CallEndResult, by user: String?, actor: SessionID?) -> [CallEffect] {
        guard var call = calls[id], !call.hasEnded else { return [] }
        call.status = .ended
        call.endResult = result
        call.endedBy = user
        call.endedAt = wallMillis()
        call.forgetAt = monoMicros() + UInt64(settings.endedCallMemorySeconds) * 1_000_000
        let told = call.wasAccepted ? [call.callerSession, call.calleeSession].compactMap { $0 }
                                    : [call.callerSession].compactMap { $0 } + call.ringing
        call.ringing = []
        call.lostDeadline = [:]
        calls[id] = call
        for side in CallSide.allCases {
            let user = CallUser(appKey: call.appKey, name: call.user(side))
            activeCalls[user]?.remove(id)
            if activeCalls[user]?.isEmpty == true { activeCalls[user] = nil }
        }
        let record = call.record(customJSON: custom(of: id))
        var effects: [CallEffect] = told.map {
            .status(session: $0, callID: id, status: .ended, by: user, endResult: result, media: nil)
        }
        effects.append(.write(record))
        if call.wasAccepted { effects.append(.endMedia(callID: id)) }
        effects.append(.hookStatus(callID: id, status: .ended, by: user, endResult: result, actor: actor))
        effects.append(.hookEnded(record, actor: actor))
        return effects
    }

    /// Timeouts due now: rings nobody accepted, devices that did not come back, and ended
    /// calls to forget. Call it a few times a second.
    public func tick() -> [CallEffect] {
        let now = monoMicros()
        var effects: [CallEffect] = []
        for id in calls.keys.sorted() {
            guard let call = calls[id] else { continue }
            if call.hasEnded {
                if now >= call.forgetAt {
                    calls[id] = nil
                    customJSON[id] = nil
                }
                continue
            }
            if call.lostDeadline.values.contains(where: { now >= $0 }) {
                effects += end(id, .connectionLost, by: nil, actor: nil)
            } else if call.status == .ringing && now >= call.ringDeadline {
                effects += end(id, .timedOut, by: nil, actor: nil)
            }
        }
        return effects
    }

    /// Server shutdown: every call ends `unknown`.
    public func shutdown() -> [CallEffect] {
        calls.keys.sorted().flatMap { end($0, .unknown, by: nil, actor: nil) }
    }

    /// A handle of the call's media failed (a transport that died): that device is lost.
    public func mediaFailed(_ id: String, side: CallSide) -> [CallEffect] {
        guard let call = calls[id], !call.hasEnded, call.wasAccepted else { return [] }
        return end(id, .connectionLost, by: nil, actor: nil)
    }

    /// The player of `side`'s device (of the other side's stream) turned PLAYING. Both
    /// playing: `CONNECTED`.
    public func mediaPlaying(_ id: String, side: CallSide) -> [CallEffect] {
        guard var call = calls[id], !call.hasEnded, call.wasAccepted else { return [] }
        call.playing.insert(side)
        calls[id] = call
        guard call.status == .connecting, call.playing.count == 2 else { return [] }
        call.status = .connected
        calls[id] = call
        var effects = tellBoth(call, .connected, by: nil, media: false)
        effects.append(.hookStatus(callID: id, status: .connected, by: nil, endResult: nil, actor: nil))
        return effects
    }
}
