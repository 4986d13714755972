import SluiceControl
import SluiceMedia
import SluiceLog
import SluiceVocabulary

/// One WebSocket connection's signaling state. Confined to the service thread; created by
/// `SessionManager.open(output:)`.
public final class RPCSession {
    public enum State: Equatable {
        /// Waiting for `connect`.
        case awaitingConnect
        case connected(SessionID)
        /// A close has been queued; further input is ignored.
        case closing
    }

    struct HandleRecord: Equatable {
        var role: StreamRole
        var stream: String
    }

    /// For logs: a small number unique within the process.
    public let connectionID: Int
    public internal(set) var state: State = .awaitingConnect
    public internal(set) var appKey: String?
    /// The access token's `sub`, when the session connected with a token that has one.
    public internal(set) var identity: String?
    /// What the session may publish and play: its token's grants, or everything.
    public internal(set) var grants = AccessGrants.unrestricted
    var output: SessionOutput?
    var handles: [StreamHandle: HandleRecord] = [:]
    var rateLimiter: RequestRateLimiter
    /// Hook numbering, `custom` objects, and the request parked on a hook (Hooks/).
    var hooks = SessionHookState()
    /// The client's address as the socket shows it (a proxy's, behind one), for log lines.
    var remoteAddress: String?

    init(connectionID: Int, output: SessionOutput, requestsPerSecond: Int) {
        self.connectionID = connectionID
        self.output = output
        self.rateLimiter = RequestRateLimiter(requestsPerSecond: requestsPerSecond)
    }

    public var sessionID: SessionID? {
        if case .connected(let id) = state { return id }
        return nil
    }

    /// The handles this session owns, with their role.
    public var handleRoles: [StreamHandle: StreamRole] {
        handles.mapValues(\.role)
    }

    func send(_ text: String) {
        guard state != .closing else { return }
        output?.send(text: text)
    }

    func close(code: UInt16, reason: String) {
        state = .closing
        output?.close(code: code, reason: reason)
    }
}

extension RPCSession {
    /// The ids of this session for a log line (`log.format: "json"`): its connection number
    /// always, its session id and app once connected.
    var logFields: [LogField] {
        var fields: [LogField] = [.connection(connectionID)]
        if let sessionID { fields.append(.session(sessionID)) }
        if let appKey { fields.append(.app(appKey)) }
        if let remoteAddress { fields.append(.remote(remoteAddress)) }
        return fields
    }
}
