import SluiceJSON
import SluiceJSONParser
import SluiceVocabulary

/// One `POST /precall` (docs/protocol.md section 6, "Pre-call test"): a signaling session of
/// its own driven with `connect` and `precall` (`HTTPSessionResource`), as a WHIP resource is.
/// It keeps what the test's `streamEvent`s said, for `GET` on its Location. Service thread only.
final class PrecallResource: HTTPSessionResource {
    enum State {
        case running(progress: JSONValue?)
        case done(report: JSONValue)
        case failed(info: String)
    }

    /// Called once, when the test has its report, failed, or its session was closed.
    var onEnd: ((PrecallResource) -> Void)?
    private(set) var state: State = .running(progress: nil)
    /// When it ended (monotonic µs); the record is kept `PrecallEndpoint.keepMicros` after.
    var endedAt: UInt64?

    override func notified(_ message: JSONValue) {
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

    override func close(code: UInt16, reason: String) {
        if case .running = state, handle != nil { state = .failed(info: StatusInfo.sessionDisconnect) }
        end()
    }

    /// Idempotent.
    override func end() {
        super.end()
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
