import SluiceJSON
import SluiceJSONParser
import SluiceVocabulary

/// One `POST /precall` (docs/protocol.md section 6, "Pre-call test"): a signaling session of
/// its own, driven with the `connect` and `precall` requests a JSON-RPC client would send, as
/// `WHIPResource` is. Its output keeps what the test's `streamEvent`s said, for `GET` on its
/// Location. Service thread only.
final class PrecallResource: SessionOutput {
    enum State {
        case running(progress: JSONValue?)
        case done(report: JSONValue)
        case failed(info: String)
    }

    /// 128 random bits in hex: the Location is the capability to read or end it.
    let id: String
    weak var session: RPCSession?
    /// The answer to the POST, or why there is none; returns whether the client can still get it.
    var onAnswer: ((Result<String, WHIPError>) -> Bool)?
    /// Called once, when the test has its report, failed, or its session was closed.
    var onEnd: ((PrecallResource) -> Void)?
    private(set) var state: State = .running(progress: nil)
    private(set) var handle: StreamHandle?
    /// When it ended (monotonic µs); the record is kept `PrecallEndpoint.keepMicros` after.
    var endedAt: UInt64?

    init(id: String) {
        self.id = id
    }

    func send(text: String) {
        guard let message = try? JSONValue.parse(text) else { return }
        if let requestID = message["id"]?.intValue {
            reply(to: Int(requestID), message)
            return
        }
        guard message["method"]?.stringValue == "streamEvent", let params = message["params"],
              let handle, params["handle"]?.stringValue == handle,
              case .running = state else { return }
        let data = params["data"] ?? .null
        switch params["type"]?.stringValue {
        case "precallProgress":
            state = .running(progress: data)
        case "precallReport":
            state = .done(report: data)
            end()
        case "precallFailed":
            state = .failed(info: data["info"]?.stringValue ?? "Failed")
            end()
        default:
            break
        }
    }

    func close(code: UInt16, reason: String) {
        if case .running = state, handle != nil { state = .failed(info: StatusInfo.sessionDisconnect) }
        end()
    }

    private func reply(to requestID: Int, _ message: JSONValue) {
        if let error = message["error"] {
            guard handle == nil, onAnswer != nil else { return }
            answer(.failure(WHIPError(rpcError: error)))
            end()
            return
        }
        guard requestID == WHIPResource.startRequestID, let result = message["result"],
              let handle = result["handle"]?.stringValue, let sdp = result["sdp"]?.stringValue else { return }
        self.handle = handle
        if !answer(.success(sdp)) { end() }
    }

    @discardableResult
    private func answer(_ result: Result<String, WHIPError>) -> Bool {
        guard let onAnswer else { return false }
        self.onAnswer = nil
        return onAnswer(result)
    }

    /// Idempotent.
    func end() {
        onAnswer = nil
        let onEnd = self.onEnd
        self.onEnd = nil
        onEnd?(self)
    }

    /// `GET`'s body.
    var json: JSONValue {
        switch state {
        case .running(let progress):
            return ["state": "running", "progress": progress ?? .null]
        case .done(let report):
            return ["state": "done", "report": report]
        case .failed(let info):
            return ["state": "failed", "info": .string(info)]
        }
    }
}
