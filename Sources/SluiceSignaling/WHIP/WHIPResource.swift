import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// One WHIP or WHEP resource: a signaling session of its own holding one publish or play
/// handle (`HTTPSessionResource`). Notifications matter only to notice that the handle has
/// ended. Service thread only.
final class WHIPResource: HTTPSessionResource {
    /// The resource's own path (its Location).
    let path: WHIPPath
    let appKey: String
    /// Called once when the resource is over: its start failed, its handle ended, or the
    /// server closed its session.
    var onEnd: ((WHIPResource) -> Void)?
    private(set) var isEnded = false

    init(id: String, path: WHIPPath, appKey: String) {
        self.path = path
        self.appKey = appKey
        super.init(id: id)
    }

    override func send(text: String) {
        guard !isEnded else { return }
        super.send(text: text)
    }

    override func notified(_ message: JSONValue) {
        // The session manager forgets a handle before it delivers its last status.
        if message["method"]?.stringValue == "streamStatus", handle != nil, session?.handleRoles.isEmpty ?? true {
            end()
        }
    }

    /// Idempotent.
    override func end() {
        guard !isEnded else { return }
        isEnded = true
        super.end()
        let onEnd = self.onEnd
        self.onEnd = nil
        onEnd?(self)
    }
}
