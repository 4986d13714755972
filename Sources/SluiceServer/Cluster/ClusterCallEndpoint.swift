import SluiceJSON
import SluiceSignaling
import SluiceLog

/// `POST /api/v1/cluster/calls` (docs/protocol.md section 2; docs/cluster.md, "Calls across
/// nodes"): another node's batch of call messages, handed to the session layer on the service
/// thread, answered with what the messages lead to. Authenticated with `cluster.secret`, as
/// relay links are. Checks run in this order: no secret here (403), secret (401), path and
/// method (404, 405), content type (415), body (400).
final class ClusterCallEndpoint {
    static let path = "/api/v1/cluster/calls"

    private let authorization: ClusterAuthorization
    private let sessions: SessionManager
    private let log: Log

    init(secret: String?, sessions: SessionManager, log: Log) {
        authorization = ClusterAuthorization(secret: secret)
        self.sessions = sessions
        self.log = log
    }

    func register(on router: HTTPRouter) {
        router.add(nil, Self.path) { [self] request in handle(request) }
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if let refusal = authorization.refusal(for: request) { return refusal }
        guard request.path == Self.path else { return .notFound }
        guard request.method == "POST" else { return AdminAPI.methodNotAllowed("POST") }
        if let type = request.header("content-type"), request.mediaType != "application/json" {
            return .error(status: 415, message: "Content-Type must be application/json, not '\(type)'",
                          reason: "UNSUPPORTED_MEDIA_TYPE", headers: [("accept-post", "application/json")])
        }
        let batch: (node: String, messages: [ClusterCallMessage])
        do {
            batch = try ClusterCallJSON.batch(from: request.body)
        } catch {
            log.warn("calls from another node: a bad batch: \(error)")
            return .error(status: 400, message: "Bad call batch: \(error)", reason: "BAD_REQUEST")
        }
        let reply = sessions.receiveClusterCalls(from: batch.node, batch.messages)
        return .json(ClusterCallJSON.reply(reply))
    }
}
