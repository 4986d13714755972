import SluiceControl
import SluiceJSON
import SluiceSignaling
import SluiceWire
import SluiceLog

/// The origin's side of the nodes' control channel (docs/protocol.md section 2, docs/cluster.md
/// "Relay links"): `POST /api/v1/cluster/links` opens a relay link of a stream to the edge that
/// asks, `DELETE /api/v1/cluster/links/{link}` closes it. Authenticated with `cluster.secret`,
/// not the admin token: nodes share the one and operators hold the other.
///
/// Runs on the service thread, which owns the engine's control side. Checks run in this order,
/// the first that fails answering: no secret here (403), secret (401), path and method (404,
/// 405), content type (415), body (400), the stream (404).
final class ClusterLinkEndpoint {
    static let path = "/api/v1/cluster/links"

    private let authorization: ClusterAuthorization
    private let media: MediaEngine
    private let nodeID: String?
    private let log: Log
    /// Refusals of a bad secret are logged once a minute at most, with a count: a scanner must
    /// not fill the log.
    private var refusedSinceLog = 0
    private var refusalLoggedAt: UInt64 = 0

    init(secret: String?, nodeID: String?, media: MediaEngine, log: Log) {
        authorization = ClusterAuthorization(secret: secret)
        self.media = media
        self.nodeID = nodeID
        self.log = log
    }

    func register(on router: HTTPRouter) {
        router.add(nil, Self.path) { [self] request in handle(request) }
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if let refusal = authorization.refusal(for: request) {
            if refusal.status == 401 { noteRefusal(request) }
            return refusal
        }
        guard let segments = AdminAPI.segments(of: request.path, under: Self.path) else { return .notFound }
        switch segments.count {
        case 0:
            guard request.method == "POST" else { return AdminAPI.methodNotAllowed("POST") }
            return open(request)
        case 1:
            guard request.method == "DELETE" else { return AdminAPI.methodNotAllowed("DELETE") }
            media.closeLink(segments[0])
            log.info("relay link \(segments[0]) closed by its edge", [.handle(segments[0])])
            return .json([:])
        default:
            return .notFound
        }
    }

    private func open(_ request: HTTPRequest) -> HTTPResponse {
        if let type = request.header("content-type"), request.mediaType != "application/json" {
            return .error(status: 415, message: "Content-Type must be application/json, not '\(type)'",
                          reason: "UNSUPPORTED_MEDIA_TYPE", headers: [("accept-post", "application/json")])
        }
        let link: LinkRequest
        do {
            link = try LinkJSON.request(from: request.body)
        } catch {
            log.info("relay link request refused: \(error)")
            return .error(status: 400, message: error.description, reason: "BAD_REQUEST")
        }
        if let nodeID, link.edgeNode == nodeID {
            return .error(status: 400, message: "'edgeNode' is this node (\(nodeID)): two nodes share one cluster.nodeId?",
                          reason: "BAD_REQUEST")
        }
        do {
            let answer = try media.openLink(link)
            log.info("relay link \(answer.link) of \(link.stream) opened for node \(link.edgeNode)",
                     [.handle(answer.link), .stream(link.stream), .peer(link.edgeNode)])
            return .json(LinkJSON.json(answer))
        } catch {
            switch error {
            case .streamNotFound, .unknownHandle:
                return AdminAPI.streamNotFound(link.stream)
            case .limitReached(let what):
                return .error(status: 503, message: "No link for \(link.stream): \(what)", reason: "LIMIT_REACHED")
            default:
                return .error(status: 500, message: "The media engine refused the link: \(error)", reason: "INTERNAL_ERROR")
            }
        }
    }

    private func noteRefusal(_ request: HTTPRequest) {
        refusedSinceLog += 1
        let now = MonotonicClock.nowMicros()
        guard refusalLoggedAt == 0 || now &- refusalLoggedAt >= 60_000_000 else { return }
        let from = request.header("x-forwarded-for").map { " (x-forwarded-for \($0))" } ?? ""
        log.warn("cluster link request with a missing or wrong cluster.secret\(from); \(refusedSinceLog) such in the last minute",
                 [.suppressed(refusedSinceLog - 1)])
        refusedSinceLog = 0
        refusalLoggedAt = now
    }
}
