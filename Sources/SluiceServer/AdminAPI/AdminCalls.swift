import SluiceCalls
import SluiceJSON
import SluiceSignaling

/// `GET /api/v1/calls` (docs/protocol.md section 6, "Calls"): a page of the call log, for any
/// user and app. The page is an index walk on the log's own read connection, so it runs on
/// the service thread like every admin route.
public final class AdminCalls {
    public static let path = "/api/v1/calls"

    private let authorization: AdminAuthorization
    private let sessions: SessionManager

    public init(adminToken: String, sessions: SessionManager) {
        authorization = AdminAuthorization(token: adminToken)
        self.sessions = sessions
    }

    public func register(on router: HTTPRouter) {
        router.addDeferred(nil, Self.path) { [self] request, responder in
            if let refusal = authorization.refusal(for: request) { _ = responder.respond(refusal); return }
            guard request.path == Self.path || request.path == Self.path + "/" else { _ = responder.respond(.notFound); return }
            guard AdminAPI.isRead(request) else { _ = responder.respond(AdminAPI.methodNotAllowed("GET")); return }
            page(request, responder)
        }
    }

    /// The page is read off the service thread (a database across the network answers from a
    /// thread of its own), and answered back on it.
    func page(_ request: HTTPRequest, _ responder: HTTPResponder) {
        let query: CallLogQuery
        switch Self.query(request.queryItems) {
        case .success(let parsed): query = parsed
        case .failure(let problem):
            _ = responder.respond(.error(status: 400, message: problem.message, reason: "BAD_REQUEST"))
            return
        }
        guard let log = sessions.callLog else {
            _ = responder.respond(.error(status: 409, message: "The call log is off (calls.database is empty)",
                                         reason: "CALL_LOG_OFF"))
            return
        }
        // Service-thread objects, carried by the reader's thread only to hand them back to the
        // service thread, which alone uses them (`runOnServiceThread` is safe from any thread).
        nonisolated(unsafe) let sessions = self.sessions
        nonisolated(unsafe) let responder = responder
        let answer = InlineOrLater<Result<CallLogPage, CallLogError>>()
        log.query(query) { result in
            // A local file answers inside the call; a database across the network from a thread
            // of its own, answered back on the service thread.
            guard !answer.answeredInline(result) else { return }
            sessions.runOnServiceThread { _ = responder.respond(Self.response(result)) }
        }
        if let result = answer.returned() { _ = responder.respond(Self.response(result)) }
    }

    static func response(_ result: Result<CallLogPage, CallLogError>) -> HTTPResponse {
        switch result {
        case .success(let page):
            return .json(.object(CallJSON.page(page)))
        case .failure(let error):
            return .error(status: 500, message: "The call log could not be read: \(error.message)", reason: "CALL_LOG_ERROR")
        }
    }

    struct Problem: Error { var message: String }

    /// `user`, `app`, `from`, `to`, `limit` (1 to 1000, default 100), `cursor`; others are ignored,
    /// and the last of a repeated one counts.
    static func query(_ items: [(name: String, value: String)]) -> Result<CallLogQuery, Problem> {
        var query = CallLogQuery(limit: 100)
        for (name, value) in items {
            switch name {
            case "user":
                guard CallParamsCheck.isValidUser(value) else {
                    return .failure(Problem(message: "'user' must be 1 to 128 characters from [A-Za-z0-9._~@-]"))
                }
                query.user = value
            case "app":
                guard !value.isEmpty else { return .failure(Problem(message: "'app' must not be empty")) }
                query.appKey = value
            case "from", "to":
                guard value.allSatisfy(\.isASCII), let ms = Int64(value), ms >= 0 else {
                    return .failure(Problem(message: "'\(name)' must be ms since the epoch, 0 or more"))
                }
                if name == "from" { query.from = ms } else { query.to = ms }
            case "limit":
                guard let limit = Int(value), (1...1000).contains(limit) else {
                    return .failure(Problem(message: "'limit' must be a whole number from 1 to 1000"))
                }
                query.limit = limit
            case "cursor":
                guard let cursor = CallLogCursor(encoded: value) else {
                    return .failure(Problem(message: "'cursor' is not one a page gave"))
                }
                query.cursor = cursor
            default:
                continue
            }
        }
        return .success(query)
    }
}
