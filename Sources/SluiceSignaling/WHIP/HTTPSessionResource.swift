import SluiceJSON
import SluiceJSONParser
import SluiceVocabulary

/// What a WHIP, WHEP or pre-call resource is to the session manager: the output of a signaling
/// session of its own, which its endpoint drives with the requests a JSON-RPC client would send
/// (`connect`, then `publish`, `play` or `precall`), so the limits, hooks, statuses and the
/// admin API treat it like any other session. The replies to those two requests answer the
/// HTTP POST; what the notifications mean is the subclass's (`WHIPResource`,
/// `PrecallResource`). Service thread only.
class HTTPSessionResource: SessionOutput {
    static let connectRequestID = 1
    static let startRequestID = 2

    /// 128 random bits in hex: the Location is the capability to read or end it.
    let id: String
    /// Set right after the session manager opens the session for this output. Weak: the
    /// session owns its output, and the manager keeps the session until it is closed.
    weak var session: RPCSession?
    /// The answer to the POST: the SDP answer, or why there is none. Returns whether the
    /// client can still get it.
    var onAnswer: ((Result<String, WHIPError>) -> Bool)?
    private(set) var handle: StreamHandle?
    /// `connect`'s `iceServers`, for the answer's `Link` header fields.
    private(set) var iceServers: JSONValue?

    init(id: String) {
        self.id = id
    }

    // MARK: SessionOutput

    func send(text: String) {
        guard let message = try? JSONValue.parse(text) else { return }
        if let requestID = message["id"]?.intValue {
            reply(to: Int(requestID), message)
        } else {
            notified(message)
        }
    }

    func close(code: UInt16, reason: String) {
        end()
    }

    /// A notification to the session (no reply): the subclass's to read.
    func notified(_ message: JSONValue) {}

    /// The resource is over; idempotent. Subclasses call their own end-of-life work here.
    func end() {
        onAnswer = nil
    }

    // MARK: Replies

    private func reply(to requestID: Int, _ message: JSONValue) {
        if let error = message["error"] {
            // After a failed `connect`, the start request fails too (1000); the first error tells why.
            guard handle == nil, onAnswer != nil else { return }
            answer(.failure(WHIPError(rpcError: error)))
            end()
            return
        }
        if requestID == Self.connectRequestID {
            iceServers = message["result"]?["iceServers"]
            return
        }
        guard requestID == Self.startRequestID, let result = message["result"],
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
}
