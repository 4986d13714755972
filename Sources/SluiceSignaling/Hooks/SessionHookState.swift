import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// A session's part in the hooks: the numbering of its hook bodies, the `custom` objects its
/// client gave, and the request parked on an authorizing hook with what arrived behind it.
struct SessionHookState {
    /// The `seq` of the last hook body built for this session.
    private(set) var seq: UInt64 = 0
    /// `connect`'s `custom`.
    var custom: JSONObject?
    /// `publish`'s and `play`'s own `custom`, by handle.
    var handleCustom: [StreamHandle: JSONObject] = [:]
    /// The request waiting for its hook's verdict, if any.
    var parkedToken: UInt64?
    /// Messages that arrived while a request was parked, in arrival order (already admitted
    /// by the rate limiter).
    var backlog: [QueuedMessage] = []

    /// At most this many messages wait behind a parked request; more get 1008.
    static let backlogLimit = 64

    var isParked: Bool { parkedToken != nil }

    mutating func nextSeq() -> UInt64 {
        seq += 1
        return seq
    }

    func custom(for handle: StreamHandle) -> JSONObject? {
        handleCustom[handle] ?? custom
    }
}

/// A message kept until the request ahead of it is done.
enum QueuedMessage {
    case text([UInt8])
    case oversized(Int)
    case binary
}

/// A request waiting for an authorizing hook. `finish` runs when the backend allowed it.
/// A request whose reply waits: for an authorizing hook, or for the home node of a call.
struct ParkedRequest {
    let session: RPCSession
    let id: JSONValue
    /// What it waits on, for the log ("connect", "call accept").
    let label: String
    /// Makes the reply once the wait is over (the hook allowed it).
    let finish: (RPCSession) throws(RPCError) -> (JSONValue, SessionManager.FollowUp)
}
