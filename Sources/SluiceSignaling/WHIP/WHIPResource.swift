import SluiceControl
import SluiceJSON
import SluiceJSONParser
import SluiceMedia
import SluiceVocabulary

/// One WHIP or WHEP resource: a signaling session of its own holding one publish or play
/// handle. The endpoint drives the session with the `connect` and `publish`/`play` requests a
/// JSON-RPC client would send, so the name-in-use rule, the limits, the hooks, the statuses
/// and the admin API treat it like any other session. Its output is not a socket: the replies
/// to those two requests answer the POST, and notifications matter only to notice that the
/// handle has ended. Service thread only.
final class WHIPResource: SessionOutput {
    static let connectRequestID = 1
    static let startRequestID = 2

    /// The resource id, 128 random bits in hex: the Location is the capability to end it.
    let id: String
    /// The resource's own path (its Location).
    let path: WHIPPath
    let appKey: String
    /// Set right after the session manager opens the session for this output. Weak: the
    /// session owns its output, and the manager keeps the session until it is closed.
    weak var session: RPCSession?
    /// The answer to the POST: the SDP answer, or why there is none. Returns whether the
    /// client can still get it.
    var onAnswer: ((Result<String, WHIPError>) -> Bool)?
    /// Called once when the resource is over: its start failed, its handle ended, or the
    /// server closed its session.
    var onEnd: ((WHIPResource) -> Void)?

    private(set) var handle: StreamHandle?
    /// `connect`'s `iceServers`, for the answer's `Link` header fields.
    private(set) var iceServers: JSONValue?
    private(set) var isEnded = false

    init(id: String, path: WHIPPath, appKey: String) {
        self.id = id
        self.path = path
        self.appKey = appKey
    }

    // MARK: SessionOutput

    func send(text: String) {
        guard !isEnded, let message = try? JSONValue.parse(text) else { return }
        if let requestID = message["id"]?.intValue {
            reply(to: Int(requestID), message)
        } else if message["method"]?.stringValue == "streamStatus", handle != nil,
                  session?.handleRoles.isEmpty ?? true {
            // The session manager forgets a handle before it delivers its last status.
            end()
        }
    }

    func close(code: UInt16, reason: String) {
        end()
    }

    // MARK: Replies

    private func reply(to requestID: Int, _ message: JSONValue) {
        if let error = message["error"] {
            // After a failed `connect`, `publish` fails too (1000); the first error tells why.
            guard handle == nil, onAnswer != nil else { return }
            answer(.failure(WHIPError(rpcError: error)))
            end()
            return
        }
        if requestID == WHIPResource.connectRequestID {
            iceServers = message["result"]?["iceServers"]
            return
        }
        guard requestID == WHIPResource.startRequestID, let result = message["result"],
              let handle = result["handle"]?.stringValue, let sdp = result["sdp"]?.stringValue else { return }
        self.handle = handle
        if !answer(.success(sdp)) {
            // The client left before its answer: nobody knows this resource's Location.
            end()
        }
    }

    @discardableResult
    private func answer(_ result: Result<String, WHIPError>) -> Bool {
        guard let onAnswer else { return false }
        self.onAnswer = nil
        return onAnswer(result)
    }

    /// Idempotent.
    func end() {
        guard !isEnded else { return }
        isEnded = true
        onAnswer = nil
        let onEnd = self.onEnd
        self.onEnd = nil
        onEnd?(self)
    }
}
