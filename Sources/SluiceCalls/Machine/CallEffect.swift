import SluiceVocabulary

/// What a step of the call machine asks the signaling layer to do, in order. The machine
/// sends nothing itself, so it is tested without sockets, JSON or a database.
public enum CallEffect: Equatable, Sendable {
    /// `incomingCall` to one of the callee's sessions.
    case incomingCall(session: SessionID, callID: String)
    /// `callStatus` to one session. `media` is the side whose stream names go with it
    /// (`publish` its own, `play` the other's).
    case status(session: SessionID, callID: String, status: CallStatus, by: String?,
                endResult: CallEndResult?, media: CallSide?)
    /// The call log's record changed: write it.
    case write(CallRecord)
    /// Stop (`held: true`) or resume both call streams for their players.
    case hold(callID: String, held: Bool)
    /// The call ended: stop the handles of its two streams.
    case endMedia(callID: String)
    /// The app's hooks: `callStarted`, `callStatus`, `callEnded`. `actor` is the session that
    /// acted, whose hook `seq` it takes, when there is one.
    case hookStarted(callID: String, actor: SessionID?)
    case hookStatus(callID: String, status: CallStatus, by: String?, endResult: CallEndResult?, actor: SessionID?)
    case hookEnded(CallRecord, actor: SessionID?)
}
