import SluiceControl
import SluiceDataChannel
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// A session's streams: `publish` and `play` (StreamHandler+PublishPlay.swift), `update`,
/// `mute`, `unmute`, `stop` and `getStats` here, the cluster's names
/// (StreamHandler+NameRegistry.swift), and the media events each session hears of its handles.
final class StreamHandler {
    let table: SessionTable
    let hooks: HookHandler
    /// Whose call a reserved call stream name is (a call's names are its parties' alone); set
    /// by the manager, which owns both handlers.
    weak var calls: CallHandler?
    /// The cluster's stream names when this server is a cluster node; nil: names are this
    /// node's alone (StreamHandler+NameRegistry.swift). Set before the server starts.
    var nameRegistry: StreamNameRegistry?
    /// Names claimed in `nameRegistry`, by the publish handle that holds each.
    var claimedNames: [String: StreamHandle] = [:]
    /// When the load figures last went to `nameRegistry` (monotonic microseconds).
    var figuresReportedAt: UInt64 = 0

    init(table: SessionTable, hooks: HookHandler) {
        self.table = table
        self.hooks = hooks
    }

    func update(_ params: RPCParams, session: RPCSession) throws(RPCError) -> JSONValue {
        let handle = try params.handle()
        let constraints = try params.constraints(required: true)
        try requireHandle(handle, of: session)
        var applied = constraints
        if session.handleRoles[handle] == .publish {
            try requireWithinLimits(constraints, session: session)
            applied = publishLimits(of: session).applied(to: constraints)
        }
        do {
            try table.media.update(handle: handle, constraints: applied)
        } catch {
            throw RPCError(error)
        }
        return [:]
    }

    /// `mute` and `unmute`.
    func setMuted(_ params: RPCParams, muted: Bool, session: RPCSession) throws(RPCError) -> JSONValue {
        let handle = try params.handle()
        let kind = try params.kind()
        try requireHandle(handle, of: session)
        do {
            try table.media.setMuted(handle: handle, kind: kind, muted: muted)
        } catch {
            throw RPCError(error)
        }
        return [:]
    }

    func stop(_ params: RPCParams, session: RPCSession) throws(RPCError) -> JSONValue {
        let handle = try params.handle()
        try requireHandle(handle, of: session)
        do {
            try table.media.stop(handle: handle)
        } catch {
            if error == .unknownHandle { session.handles[handle] = nil }
            throw RPCError(error)
        }
        session.handles[handle] = nil
        return [:]
    }

    func stats(_ params: RPCParams, session: RPCSession) throws(RPCError) -> JSONValue {
        let handle = try params.handle()
        try requireHandle(handle, of: session)
        do {
            return MediaJSON.stats(try table.media.stats(handle: handle), identity: session.identity,
                                   dataChannels: table.media.dataChannelStats(handle: handle))
        } catch {
            if error == .unknownHandle { session.handles[handle] = nil }
            throw RPCError(error)
        }
    }

    private func requireHandle(_ handle: StreamHandle, of session: RPCSession) throws(RPCError) {
        guard session.handles[handle] != nil else { throw .unknownHandle }
    }

    /// A media event to the session that owns its handle (the hooks heard of it already).
    func deliver(_ event: MediaEvent) {
        switch event {
        case let .streamStatus(sessionID, handle, stream, role, status, info, ends):
            guard let target = table.connected[sessionID] else { return }
            if ends { target.handles[handle] = nil }
            target.send(RPCMessage.notification("streamStatus", MediaJSON.streamStatus(
                handle: handle, stream: stream, role: role, status: status, info: info)))
        case let .streamEvent(sessionID, handle, stream, type, by, data):
            guard let target = table.connected[sessionID] else { return }
            target.send(RPCMessage.notification("streamEvent", MediaJSON.streamEvent(
                handle: handle, stream: stream, type: type, by: by, data: data)))
        case let .precall(sessionID, handle, type, data, ends):
            guard let target = table.connected[sessionID] else { return }
            if ends { target.handles[handle] = nil }
            target.send(RPCMessage.notification("streamEvent", MediaJSON.precallEvent(handle: handle, type: type, data: data)))
        case .recording, .audioLevel:
            // The publisher's own streamEvent came as a .streamEvent; this one is for hooks.
            // Levels go to the speaker followers (`SpeakerHandler`).
            break
        }
    }

    // MARK: The app's rules and the token's grants

    /// 1009 when a publisher asks for more than its app allows.
    func requireWithinLimits(_ constraints: StreamConstraints, session: RPCSession) throws(RPCError) {
        if !publishLimits(of: session).allow(constraints) { throw RPCError(MediaError.constraintsExceedLimits) }
    }

    /// The caps on this session's publishers: its app's limits and its token's, the lower of each.
    func publishLimits(of session: RPCSession) -> PublishLimits {
        guard let app = table.app(of: session) else { return session.grants.caps }
        return app.limits.tightened(by: session.grants.caps)
    }

    /// Whether the session's app stops publishers that stay over a cap.
    func stopsWhenExceeded(_ session: RPCSession) -> Bool {
        table.app(of: session)?.stopWhenExceeded ?? false
    }

    /// 1012 when the session's grants leave out this publish or play (checked after the
    /// params and before the limits, so nothing else is said about a name it may not use).
    func requireGrant(_ role: StreamRole, stream: String, record: Bool, session: RPCSession) throws(RPCError) {
        switch role {
        case .publish:
            guard session.grants.allowsPublish(stream) else { throw .notGranted("publish of '\(stream)'") }
            if record && !session.grants.record { throw .notGranted("recording of '\(stream)'") }
        case .play:
            guard session.grants.allowsPlay(stream) else { throw .notGranted("play of '\(stream)'") }
        }
    }

    /// The start bitrate setting of the session's app (the default for a session without one).
    func startBitrate(of session: RPCSession) -> StartBitrate {
        table.app(of: session)?.startBitrate ?? .standard
    }

    /// The app's data channel rules (the defaults for a session of no configured app).
    func dataChannels(of session: RPCSession) -> DataChannelPolicy? {
        guard let app = table.app(of: session) else { return DataChannelPolicy() }
        return app.dataChannels
    }

    /// Whether a publish is recorded: what it asked, under its app's `recording` setting.
    func recordingDecision(asked: Bool, session: RPCSession) throws(RPCError) -> Bool {
        let app = table.app(of: session)
        switch app?.recording ?? .request {
        case .request: return asked
        case .always: return true
        case .off:
            if asked { throw RPCError(MediaError.limitReached(AppRecording.offMessage(app: app?.key ?? ""))) }
            return false
        }
    }
}
