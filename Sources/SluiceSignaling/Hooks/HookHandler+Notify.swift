import SluiceCalls
import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// Notification hooks: they follow the media events and the calls.
extension HookHandler {
    /// `streamStatus` on every status change, `streamEvent` on mute, unmute and layer events.
    func notifyHooks(of event: MediaEvent) {
        switch event {
        case let .streamStatus(sessionID, handle, stream, role, status, info, ends):
            guard let session = subjects[sessionID], let appKey = session.appKey else { return }
            var fields: JSONObject = ["handle": .string(handle), "stream": .string(stream),
                                      "role": .string(role.rawValue), "status": .string(status.rawValue)]
            if let info { fields["info"] = .string(info) }
            notify(.streamStatus, session: session, appKey: appKey, sessionID: sessionID, fields: fields,
                   custom: session.hooks.custom(for: handle))
            if ends { session.hooks.handleCustom[handle] = nil }
        case let .streamEvent(sessionID, handle, stream, type, by, data):
            guard HookHandler.hookedEventTypes.contains(type),
                  let session = subjects[sessionID], let appKey = session.appKey else { return }
            let fields = MediaJSON.streamEvent(handle: handle, stream: stream, type: type, by: by, data: data)
            notify(.streamEvent, session: session, appKey: appKey, sessionID: sessionID, fields: fields,
                   custom: session.hooks.custom(for: handle))
        case let .recording(notice):
            notifyRecording(notice)
        case .precall, .audioLevel:
            // A pre-call test is no stream, and levels come too often: no hook hears of them.
            break
        }
    }

    /// `recordingStarted`, `recordingStopped`, `recordingFailed`: the app's hooks hear of every
    /// recording, also one that ends after its publisher's session has (then without `seq`,
    /// `identity` and the handle's `custom`, which went with the session).
    private func notifyRecording(_ notice: RecordingNotice) {
        guard let event = HookEvent(rawValue: notice.type), dispatcher.hooks(forApp: notice.appKey) != nil else { return }
        var fields: JSONObject = ["handle": .string(notice.handle), "stream": .string(notice.stream)]
        for (key, value) in notice.data { fields[key] = MediaJSON.json(value) }
        if let session = subjects[notice.session] ?? table.connected[notice.session] {
            notify(event, session: session, appKey: notice.appKey, sessionID: notice.session, fields: fields,
                   custom: session.hooks.custom(for: notice.handle))
            return
        }
        var body: JSONObject = ["event": .string(event.rawValue), "appKey": .string(notice.appKey),
                                "sessionId": .string(notice.session), "timestamp": JSONValue(table.wallClockMillis())]
        for (key, value) in fields { body[key] = value }
        body["custom"] = .object(JSONObject())
        guard let request = dispatcher.request(event, app: notice.appKey, body: body) else { return }
        dispatcher.notify(request, app: notice.appKey)
    }

    /// `streamEvent` types that reach the hooks; `resize` and `connectionQuality` do not.
    static let hookedEventTypes: Set<String> = [
        "audioMuted", "audioUnmuted", "videoMuted", "videoUnmuted", "layerChanged", "notEnoughBandwidth", "limitExceeded",
    ]

    /// The session ended after its handles' last statuses went out: `disconnect`.
    func sessionEnded(_ sessionID: SessionID) {
        guard let session = subjects.removeValue(forKey: sessionID), let appKey = session.appKey else { return }
        notify(.disconnect, session: session, appKey: appKey, sessionID: sessionID, fields: [:],
               custom: session.hooks.custom)
        session.hooks.handleCustom.removeAll()
    }

    private func notify(_ event: HookEvent, session: RPCSession, appKey: String, sessionID: SessionID,
                        fields: JSONObject, custom: JSONObject?) {
        let body = hookBody(event, appKey: appKey, sessionID: sessionID, session: session, fields: fields, custom: custom)
        guard let request = dispatcher.request(event, app: appKey, body: body) else { return }
        dispatcher.notify(request, app: appKey)
    }

    /// `event`, `appKey`, `sessionId`, `seq`, `timestamp`, the method's fields, then `custom`
    /// (`{}` when the client gave none).
    func hookBody(_ event: HookEvent, appKey: String, sessionID: SessionID, session: RPCSession,
                  fields: JSONObject, custom: JSONObject?) -> JSONObject {
        var body: JSONObject = [
            "event": .string(event.rawValue),
            "appKey": .string(appKey),
            "sessionId": .string(sessionID),
        ]
        // The token's `sub`, for sessions that connected with one that has it.
        if let identity = session.identity { body["identity"] = .string(identity) }
        body["seq"] = JSONValue(session.hooks.nextSeq())
        body["timestamp"] = JSONValue(table.wallClockMillis())
        for (key, value) in fields { body[key] = value }
        body["custom"] = .object(custom ?? JSONObject())
        return body
    }

    // MARK: Call hooks

    /// `callStarted`, `callStatus`, `callEnded` (docs/protocol.md section 6, "Calls"): in the seq of
    /// the session that acted while it is open, else without one, as a recording's hooks.
    func notifyCall(_ event: HookEvent, call: Call, actor: SessionID?, fields: JSONObject, custom: JSONObject?) {
        notifyCall(event, appKey: call.appKey, actor: actor, fields: fields, custom: custom)
    }

    func notifyCall(_ event: HookEvent, appKey: String, actor: SessionID?, fields: JSONObject, custom: JSONObject?) {
        guard dispatcher.hooks(forApp: appKey) != nil else { return }
        let body: JSONObject
        if let actor, let session = subjects[actor] ?? table.connected[actor] {
            body = hookBody(event, appKey: appKey, sessionID: actor, session: session, fields: fields, custom: custom)
        } else {
            var loose: JSONObject = ["event": .string(event.rawValue), "appKey": .string(appKey),
                                     "timestamp": JSONValue(table.wallClockMillis())]
            for (key, value) in fields { loose[key] = value }
            loose["custom"] = .object(custom ?? JSONObject())
            body = loose
        }
        guard let request = dispatcher.request(event, app: appKey, body: body) else { return }
        dispatcher.notify(request, app: appKey)
    }
}
