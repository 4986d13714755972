import SluiceCalls
import SluiceJSON
import SluiceVocabulary

/// `callStarted`, `callStatus`, `callEnded` (docs/protocol.md section 6, "Calls"): in the seq of
/// the session that acted while it is open, else without one, as a recording's hooks.
extension SessionManager {
    func notifyCall(_ event: HookEvent, call: Call, actor: SessionID?, fields: JSONObject, custom: JSONObject?) {
        notifyCall(event, appKey: call.appKey, actor: actor, fields: fields, custom: custom)
    }

    func notifyCall(_ event: HookEvent, appKey: String, actor: SessionID?, fields: JSONObject, custom: JSONObject?) {
        guard hooks.hooks(forApp: appKey) != nil else { return }
        let body: JSONObject
        if let actor, let session = hookSubjects[actor] ?? connected[actor] {
            body = hookBody(event, appKey: appKey, sessionID: actor, session: session, fields: fields, custom: custom)
        } else {
            var loose: JSONObject = ["event": .string(event.rawValue), "appKey": .string(appKey),
                                     "timestamp": JSONValue(wallClockMillis())]
            for (key, value) in fields { loose[key] = value }
            loose["custom"] = .object(custom ?? JSONObject())
            body = loose
        }
        guard let request = hooks.request(event, app: appKey, body: body) else { return }
        hooks.notify(request, app: appKey)
    }
}
