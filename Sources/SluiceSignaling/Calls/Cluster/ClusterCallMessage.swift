import SluiceCalls
import SluiceVocabulary

/// What nodes say to each other about calls (docs/cluster.md, "Calls across nodes"; the JSON in
/// `ClusterCallJSON`). A call's home (the caller's node) tells the nodes of its other sessions
/// what to tell them and what to do with the call's streams there; those nodes send their
/// sessions' methods and their call streams' media back to the home.
public enum ClusterCallMessage: Sendable, Equatable {
    /// Home to node: tell `session` of the call, as the side it is on.
    case notify(session: SessionID, side: CallSide, summary: CallSummary, event: NotifyEvent)
    /// Home to node: server-mute (`held`) or unmute the call's streams published there.
    case hold(callID: String, held: Bool)
    /// Home to node: the call ended; stop the handles of its streams there.
    case endMedia(callID: String)
    /// Node to home: `session` (of `user` in `appKey`) called `method` on the call.
    case method(name: String, callID: String, session: SessionID, user: String, appKey: String)
    /// Node to home: the player of `side`'s device there turned PLAYING, or a handle of the
    /// call's media there failed.
    case media(callID: String, side: CallSide, playing: Bool)

    public enum NotifyEvent: Sendable, Equatable {
        case incomingCall
        case callStatus(CallStatus, by: String?, endResult: CallEndResult?, media: CallSide?)
    }

    /// The call methods a node sends to the home.
    public static let methods: Set<String> = ["accept", "decline", "hangup", "hold", "unhold"]
}

/// The home's answer to a batch: for a `method`, its error or the messages for the asking
/// node's own sessions, which that node carries out after it answered its client (a reply
/// comes before the notifications it causes).
public struct ClusterCallReply: Sendable, Equatable {
    public var error: RPCError?
    public var messages: [ClusterCallMessage]

    public init(error: RPCError? = nil, messages: [ClusterCallMessage] = []) {
        self.error = error
        self.messages = messages
    }
}

/// Why a batch did not reach its node, or its answer could not be read.
public struct ClusterCallFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
