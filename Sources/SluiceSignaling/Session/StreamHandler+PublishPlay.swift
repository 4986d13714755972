import SluiceControl
import SluiceDataChannel
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// `publish` and `play`: checks, grants and limits, then the media engine, through the
/// stream hook when the app has one.
extension StreamHandler {
    /// Publish and play of a reserved call name: the call's devices only (1012 otherwise).
    /// True when the name is a call's, so that the token's grants do not apply.
    private func checkCallStream(_ stream: String, publish: Bool, sessionID: SessionID) throws(RPCError) -> Bool {
        guard let calls else { return false }
        return try calls.checkCallStream(stream, publish: publish, sessionID: sessionID)
    }

    /// `merging`: members the result starts with (`accept` with an `sdp` publishes through here).
    func publish(_ params: RPCParams, id requestID: JSONValue, session: RPCSession, sessionID: SessionID,
                 followUp: inout SessionManager.FollowUp, merging prefix: JSONObject = [:]) throws(RPCError) -> JSONValue {
        let config = table.config
        let media = table.media
        try table.refuseWhileDraining()
        let stream = try params.streamName()
        let sdp = try params.sdp()
        let constraints = try params.constraints()
        let asked = try params.optionalBool("record", default: false)
        let e2ee = try params.optionalBool("e2ee", default: false)
        let custom = try params.optionalObject("custom")
        // A call's stream: its device alone, and the call is its grant (not the token's lists).
        let isCallStream = try checkCallStream(stream, publish: true, sessionID: sessionID)
        if !isCallStream {
            try requireGrant(.publish, stream: stream, record: asked, session: session)
        } else if asked && !session.grants.record {
            throw .notGranted("recording of '\(stream)'")
        }
        let record = try recordingDecision(asked: asked, session: session)
        // Before the server's own refusal: no server could record it.
        if record && e2ee { throw RPCError(MediaError.limitReached(MediaEngine.encryptedNotRecorded)) }
        // Before any hook: a server without a recorder refuses at once, and makes no handle.
        if record && !media.recordingEnabled { throw RPCError(MediaError.limitReached(MediaEngine.recordingOff)) }
        try table.requireHandleCapacity(session)
        try requireWithinLimits(constraints, session: session)
        let limits = publishLimits(of: session)
        var request = PublishRequest(session: sessionID, stream: stream, offer: sdp,
                                     constraints: limits.applied(to: constraints),
                                     caps: PublishCaps(maxWidth: limits.maxWidth, maxHeight: limits.maxHeight,
                                                       maxFps: limits.maxFps,
                                                       stopWhenExceeded: stopsWhenExceeded(session)),
                                     startBitrateKbps: startBitrate(of: session).kbps(declared: constraints, limits: limits))
        request.dynacast = table.app(of: session)?.dynacast ?? true
        request.red = table.app(of: session)?.red ?? true
        // A device that goes silent (a frozen phone, a lost network, its socket not yet closed)
        // fails its call stream within seconds, and that ends the call `connectionLost`.
        if isCallStream && config.calls.mediaTimeoutSeconds > 0 {
            request.caps.rtpTimeoutSeconds = config.calls.mediaTimeoutSeconds
        }
        request.record = record
        request.e2ee = e2ee
        request.appKey = session.appKey ?? ""
        request.dataChannels = dataChannels(of: session)
        let start = { [unowned self] (session: RPCSession) throws(RPCError) -> JSONValue in
            let answer: MediaAnswer
            // After the hook: the name in use is checked again then (section 6, Hooks).
            let claimed = try claimName(stream, session: session)
            do throws(MediaError) {
                answer = try media.publish(request)
            } catch {
                if claimed { releaseName(stream) }
                throw RPCError(error)
            }
            if claimed {
                claimedNames[stream] = answer.handle
                nameRegistry?.published(stream: stream)
            }
            session.handles[answer.handle] = RPCSession.HandleRecord(role: .publish, stream: stream)
            if let custom { session.hooks.handleCustom[answer.handle] = custom }
            var result = prefix
            result["handle"] = .string(answer.handle)
            result["sdp"] = .string(answer.sdp)
            return .object(result)
        }
        if let appKey = session.appKey, hooks.hasHooks(app: appKey) {
            var fields: JSONObject = ["stream": .string(stream), "role": "publish"]
            if let given = params.members["constraints"], !given.isNull { fields["constraints"] = given }
            fields["record"] = .bool(record)
            hooks.park(session, id: requestID, event: .publishStream, appKey: appKey, sessionID: sessionID,
                       fields: fields, custom: custom ?? session.hooks.custom) { session throws(RPCError) in
                (try start(session), .none)
            }
            followUp = .parked
            return .null
        }
        return try start(session)
    }

    func play(_ params: RPCParams, id requestID: JSONValue, session: RPCSession, sessionID: SessionID,
              followUp: inout SessionManager.FollowUp) throws(RPCError) -> JSONValue {
        let media = table.media
        try table.refuseWhileDraining()
        let stream = try params.streamName()
        let sdp = try params.sdp()
        let constraints = try params.constraints()
        let wait = try params.optionalBool("wait", default: false)
        let custom = try params.optionalObject("custom")
        if try !checkCallStream(stream, publish: false, sessionID: sessionID) {
            try requireGrant(.play, stream: stream, record: false, session: session)
        }
        try table.requireHandleCapacity(session)
        var request = PlayRequest(session: sessionID, stream: stream, offer: sdp, constraints: constraints, wait: wait)
        request.dataChannels = dataChannels(of: session)
        request.instantJoin = table.app(of: session)?.instantJoin ?? true
        request.red = table.app(of: session)?.red ?? true
        let start = { (session: RPCSession) throws(RPCError) -> JSONValue in
            let answer: MediaAnswer
            do throws(MediaError) {
                answer = try media.play(request)
            } catch {
                throw RPCError(error)
            }
            session.handles[answer.handle] = RPCSession.HandleRecord(role: .play, stream: stream)
            if let custom { session.hooks.handleCustom[answer.handle] = custom }
            return ["handle": .string(answer.handle), "sdp": .string(answer.sdp)]
        }
        if let appKey = session.appKey, hooks.hasHooks(app: appKey) {
            var fields: JSONObject = ["stream": .string(stream), "role": "play"]
            if let given = params.members["constraints"], !given.isNull { fields["constraints"] = given }
            fields["wait"] = .bool(wait)
            hooks.park(session, id: requestID, event: .playStream, appKey: appKey, sessionID: sessionID,
                       fields: fields, custom: custom ?? session.hooks.custom) { session throws(RPCError) in
                (try start(session), .none)
            }
            followUp = .parked
            return .null
        }
        return try start(session)
    }
}
