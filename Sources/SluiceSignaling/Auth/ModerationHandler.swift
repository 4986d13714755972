import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary
import SluiceLog

/// Moderator calls over the WebSocket: a session whose token has the `admin` grant may mute
/// and unmute any stream of its own app for every player, as the admin API's server-side mute
/// does (docs/protocol.md section 6, "Access tokens").
final class ModerationHandler {
    let table: SessionTable

    init(table: SessionTable) {
        self.table = table
    }

    /// `muteStream` / `unmuteStream` with `stream` and `kind`.
    func moderateMute(_ params: RPCParams, muted: Bool, session: RPCSession) throws(RPCError) -> JSONValue {
        let stream = try params.streamName()
        let kind = try params.kind()
        guard session.grants.admin else { throw .notGranted("moderating '\(stream)' (the token has no admin grant)") }
        // Another app's stream is not found, so its names do not leak.
        guard publisherApp(of: stream) == session.appKey else { throw RPCError(MediaError.streamNotFound) }
        do {
            try table.media.setServerMuted(stream: stream, kind: kind, muted: muted)
        } catch {
            throw RPCError(error)
        }
        table.log.info("connection \(session.connectionID): \(muted ? "muted" : "unmuted") \(kind.rawValue) of \(stream)"
                       + " as moderator" + (session.identity.map { " \"\($0)\"" } ?? ""),
                       session.logFields + [.stream(stream)])
        return [:]
    }

    /// The app of the session that publishes `stream`, if one does.
    private func publisherApp(of stream: String) -> String? {
        table.connectedSessions.first { owner in
            owner.handles.values.contains { $0.role == .publish && $0.stream == stream }
        }?.appKey
    }
}
