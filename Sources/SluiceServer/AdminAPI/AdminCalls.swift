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
        router.add(nil, Self.path) { [self] request in
            if let refusal = authorization.refusal(for: request) { return refusal }
            guard request.path == Self.path || request.path == Self.path + "/" else { return .notFound }
            guard AdminAPI.isRead(request) else { return AdminAPI.methodNotAllowed("GET") }
            return page(request)
        }
    }

    func page(_ request: HTTPRequest) -> HTTPResponse {
        let query: CallLogQuery
        switch Self.query(request.queryItems) {
        case .success(let parsed): query = parsed
        case .failure(let problem): return .error(status: 400, message: problem.message, reason: "BAD_REQUEST")
        }
        guard let log = sessions.callLog else {
            return .error(status: 409, message: "The call log is off (calls.database is empty)", reason: "CALL_LOG_OFF")
        }
        do throws(CallLogError) {
            return .json(.object(CallJSON.page(try log.query(query))))
        } catch {
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
