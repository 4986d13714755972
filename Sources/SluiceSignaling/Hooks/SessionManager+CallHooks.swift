import SluiceCalls
import SluiceJSON
import SluiceVocabulary

/// `callStarted`, `callStatus`, `callEnded` (docs/protocol.md section 6, "Calls"): in the seq of
/// the session that acted while it is open, else without one, as a recording's hooks.
extension SessionManager {
    func notifyCall(_ event: HookEvent, call: Call, actor: SessionID?, fields: JSONObject, custom: JSONObject?) {
        guard hooks.hooks(forApp: call.appKey) != nil else { return }
        let body: JSONObject
        if let actor, let session = hookSubjects[actor] ?? connected[actor] {
            body = hookBody(event, appKey: call.appKey, sessionID: actor, session: session, fields: fields, custom: custom)
        } else {
            var loose: JSONObject = ["event": .string(event.rawValue), "appKey": .string(call.appKey),
                                     "timestamp": JSONValue(wallClockMillis())]
            for (key, value) in fields { loose[key] = value }
            loose["custom"] = .object(custom ?? JSONObject())
            body = loose
        }
        guard let request = hooks.request(event, app: call.appKey, body: body) else { return }
        hooks.notify(request, app: call.appKey)
    }
}
