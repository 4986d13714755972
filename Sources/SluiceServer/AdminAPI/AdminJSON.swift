import SluiceJSON
import SluiceMedia
import SluiceSignaling

/// The JSON shapes of the admin API. Per-kind figures use the field names of PROTOCOL.md
/// section 3, the same as `getStats`.
enum AdminJSON {
    /// `appKey` is the publisher's app; `sessionOf` maps handles to their sessions.
    static func stream(_ view: StreamView, appKey: String?, sessionOf: [StreamHandle: SessionID]) -> JSONValue {
        var object: JSONObject = ["name": .string(view.name)]
        object["appKey"] = appKey.map { .string($0) } ?? .null
        if let publisher = view.publisher {
            object["publisher"] = handle(publisher, session: view.publisherSession ?? sessionOf[publisher.handle])
        } else {
            object["publisher"] = .null
        }
        object["players"] = .array(view.players.map { handle($0, session: sessionOf[$0.handle]) })
        object["muted"] = ["audio": mute(view.audioMuted), "video": mute(view.videoMuted)]
        return .object(object)
    }

    /// The `getStats` object of the handle, with the session that owns it.
    static func handle(_ stats: HandleStats, session: SessionID?) -> JSONValue {
        guard case .object(var object) = MediaJSON.stats(stats) else { return .null }
        object["session"] = session.map { .string($0) } ?? .null
        return .object(object)
    }

    static func mute(_ state: MuteState) -> JSONValue {
        ["muted": .bool(state.muted), "byPublisher": .bool(state.byPublisher), "byServer": .bool(state.byServer)]
    }

    /// `streamOf` names the stream of a handle when the engine still knows it.
    static func session(_ session: RPCSession, id: SessionID, streamOf: (StreamHandle) -> String?) -> JSONValue {
        let handles: [JSONValue] = session.handleRoles.sorted { $0.key < $1.key }.map { handle, role in
            var object: JSONObject = ["handle": .string(handle), "role": .string(role.rawValue)]
            object["stream"] = streamOf(handle).map { .string($0) } ?? .null
            return .object(object)
        }
        var object: JSONObject = ["id": .string(id)]
        object["appKey"] = session.appKey.map { .string($0) } ?? .null
        object["handles"] = .array(handles)
        return .object(object)
    }
}
