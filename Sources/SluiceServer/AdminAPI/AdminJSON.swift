import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceSignaling
import SluiceVocabulary

/// The JSON shapes of the admin API. Per-kind figures use the field names of docs/protocol.md
/// section 3, the same as `getStats`.
enum AdminJSON {
    /// `appKey` is the publisher's app; `sessionOf` maps handles to their sessions, and
    /// `identityOf` sessions to their token's identity.
    static func stream(_ view: StreamView, appKey: String?, sessionOf: [StreamHandle: SessionID],
                       identityOf: (SessionID) -> String?, recording: String? = nil) -> JSONValue {
        var object: JSONObject = ["name": .string(view.name)]
        object["appKey"] = appKey.map { .string($0) } ?? .null
        // The file being written (without its extension until it opens), or null.
        object["recording"] = recording.map { .string($0) } ?? .null
        func entry(_ stats: HandleStats, _ session: SessionID?) -> JSONValue {
            handle(stats, session: session, identity: session.flatMap(identityOf))
        }
        if let publisher = view.publisher {
            object["publisher"] = entry(publisher, view.publisherSession ?? sessionOf[publisher.handle])
        } else {
            object["publisher"] = .null
        }
        object["players"] = .array(view.players.map { entry($0, sessionOf[$0.handle]) })
        object["muted"] = ["audio": mute(view.audioMuted), "video": mute(view.videoMuted)]
        return .object(object)
    }

    /// The `getStats` object of the handle, with the session that owns it.
    static func handle(_ stats: HandleStats, session: SessionID?, identity: String?) -> JSONValue {
        guard case .object(var object) = MediaJSON.stats(stats, identity: identity) else { return .null }
        object["session"] = session.map { .string($0) } ?? .null
        if let worker = stats.worker { object["worker"] = JSONValue(worker) }
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
        if let identity = session.identity { object["identity"] = .string(identity) }
        object["handles"] = .array(handles)
        return .object(object)
    }
}
