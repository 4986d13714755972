import SluiceControl
import SluiceDataChannel
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// `publish` and `play`: checks, grants and limits, then the media engine, through the
/// stream hook when the app has one.
extension SessionManager {
    /// 1009 when a publisher asks for more than its app allows.
    func requireWithinLimits(_ constraints: StreamConstraints, session: RPCSession) throws(RPCError) {
        if !publishLimits(of: session).allow(constraints) { throw RPCError(MediaError.constraintsExceedLimits) }
    }

    /// The start bitrate setting of the session's app (the default for a session without one).
    func startBitrate(of session: RPCSession) -> StartBitrate {
        session.appKey.flatMap { config.app(withKey: $0) }?.startBitrate ?? .standard
    }

    /// The app's data channel rules (the defaults for a session of no configured app).
    func dataChannels(of session: RPCSession) -> DataChannelPolicy? {
        guard let app = session.appKey.flatMap({ config.app(withKey: $0) }) else { return DataChannelPolicy() }
        return app.dataChannels
    }

    /// Whether a publish is recorded: what it asked, under its app's `recording` setting.
    func recordingDecision(asked: Bool, session: RPCSession) throws(RPCError) -> Bool {
        let app = session.appKey.flatMap { config.app(withKey: $0) }
        switch app?.recording ?? .request {
        case .request: return asked
        case .always: return true
        case .off:
            if asked { throw RPCError(MediaError.limitReached(AppRecording.offMessage(app: app?.key ?? ""))) }
            return false
        }
    }

    /// `merging`: members the result starts with (`accept` with an `sdp` publishes through here).
    func publish(_ params: RPCParams, id requestID: JSONValue, session: RPCSession, sessionID: SessionID,
                 followUp: inout FollowUp, merging prefix: JSONObject = [:]) throws(RPCError) -> JSONValue {
        let stream = try params.streamName()
        let sdp = try params.sdp()
        let constraints = try params.constraints()
        let asked = try params.optionalBool("record", default: false)
        let custom = try params.optionalObject("custom")
        // A call's stream: its device alone, and the call is its grant (not the token's lists).
        let isCallStream = try checkCallStream(stream, publish: true, sessionID: sessionID)
        if !isCallStream {
            try requireGrant(.publish, stream: stream, record: asked, session: session)
        } else if asked && !session.grants.record {
            throw .notGranted("recording of '\(stream)'")
        }
        let record = try recordingDecision(asked: asked, session: session)
        // Before any hook: a server without a recorder refuses at once, and makes no handle.
        if record && !media.recordingEnabled { throw RPCError(MediaError.limitReached(MediaEngine.recordingOff)) }
        try requireHandleCapacity(session)
        try requireWithinLimits(constraints, session: session)
        let limits = publishLimits(of: session)
        var request = PublishRequest(session: sessionID, stream: stream, offer: sdp,
                                     constraints: limits.applied(to: constraints),
                                     caps: PublishCaps(maxWidth: limits.maxWidth, maxHeight: limits.maxHeight,
                                                       maxFps: limits.maxFps,
                                                       stopWhenExceeded: stopsWhenExceeded(session)),
                                     startBitrateKbps: startBitrate(of: session).kbps(declared: constraints, limits: limits))
        // A device that goes silent (a frozen phone, a lost network, its socket not yet closed)
        // fails its call stream within seconds, and that ends the call `connectionLost`.
        if isCallStream && config.calls.mediaTimeoutSeconds > 0 {
            request.caps.rtpTimeoutSeconds = config.calls.mediaTimeoutSeconds
        }
        request.record = record
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
        if let appKey = session.appKey, hooks.hooks(forApp: appKey) != nil {
            var fields: JSONObject = ["stream": .string(stream), "role": "publish"]
            if let given = params.members["constraints"], !given.isNull { fields["constraints"] = given }
            fields["record"] = .bool(record)
            park(session, id: requestID, event: .publishStream, appKey: appKey, sessionID: sessionID,
                 fields: fields, custom: custom ?? session.hooks.custom) { session throws(RPCError) in
                (try start(session), .none)
            }
            followUp = .parked
            return .null
        }
        return try start(session)
    }

    func play(_ params: RPCParams, id requestID: JSONValue, session: RPCSession, sessionID: SessionID,
                      followUp: inout FollowUp) throws(RPCError) -> JSONValue {
        let stream = try params.streamName()
        let sdp = try params.sdp()
        let constraints = try params.constraints()
        let wait = try params.optionalBool("wait", default: false)
        let custom = try params.optionalObject("custom")
        if try !checkCallStream(stream, publish: false, sessionID: sessionID) {
            try requireGrant(.play, stream: stream, record: false, session: session)
        }
        try requireHandleCapacity(session)
        var request = PlayRequest(session: sessionID, stream: stream, offer: sdp, constraints: constraints, wait: wait)
        request.dataChannels = dataChannels(of: session)
        request.instantJoin = session.appKey.flatMap { config.app(withKey: $0) }?.instantJoin ?? true
        let start = { [unowned self] (session: RPCSession) throws(RPCError) -> JSONValue in
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
        if let appKey = session.appKey, hooks.hooks(forApp: appKey) != nil {
            var fields: JSONObject = ["stream": .string(stream), "role": "play"]
            if let given = params.members["constraints"], !given.isNull { fields["constraints"] = given }
            fields["wait"] = .bool(wait)
            park(session, id: requestID, event: .playStream, appKey: appKey, sessionID: sessionID,
                 fields: fields, custom: custom ?? session.hooks.custom) { session throws(RPCError) in
                (try start(session), .none)
            }
            followUp = .parked
            return .null
        }
        return try start(session)
    }
}
