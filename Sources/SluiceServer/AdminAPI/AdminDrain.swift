import SluiceJSON
import SluiceSignaling

/// `POST /api/v1/drain` (docs/protocol.md section 2): the drain SIGTERM begins, for an
/// orchestrator that would rather call than signal. 202 with the deadline; a second call
/// answers the same, since the drain that runs is the one asked for.
final class AdminDrain {
    static let path = "/api/v1/drain"

    private let authorization: AdminAuthorization
    /// Begins the drain (or finds it begun); the seconds it may last.
    private let drain: () -> Int

    init(adminToken: String, drain: @escaping () -> Int) {
        authorization = AdminAuthorization(token: adminToken)
        self.drain = drain
    }

    func register(on router: HTTPRouter) {
        router.add(nil, Self.path) { [self] request in
            if let refusal = authorization.refusal(for: request) { return refusal }
            guard request.path == Self.path else { return .notFound }
            guard request.method == "POST" else { return AdminAPI.methodNotAllowed("POST") }
            return .json(["status": "draining", "drainSeconds": JSONValue(drain())], status: 202)
        }
    }
}
