import SluiceSignaling

/// The bearer check of the nodes' control channel (`cluster.secret`, docs/cluster.md "Relay
/// links"): the same constant-time comparison as the admin token's. Without a secret the
/// channel is off (403), never open: a link hands out any stream.
struct ClusterAuthorization: Sendable {
    private let secret: [UInt8]

    init(secret: String?) {
        self.secret = Array((secret ?? "").utf8)
    }

    var isEnabled: Bool { !secret.isEmpty }

    /// nil when the request may go on; otherwise the 403 or 401 to answer with.
    func refusal(for request: HTTPRequest) -> HTTPResponse? {
        guard isEnabled else {
            return .error(status: 403, message: "Relay links are off on this node: set cluster.secret (the same on every node)",
                          reason: "CLUSTER_LINKS_DISABLED")
        }
        guard let presented = HTTPRequest.bearerToken(request.header("authorization")) else {
            return .error(status: 401, message: "An 'Authorization: Bearer <cluster.secret>' header is required",
                          reason: "UNAUTHORIZED", headers: [("www-authenticate", "Bearer realm=\"sluice-cluster\"")])
        }
        guard AdminAuthorization.constantTimeEquals(Array(presented.utf8), secret) else {
            return .error(status: 401, message: "The cluster secret is wrong", reason: "UNAUTHORIZED",
                          headers: [("www-authenticate", "Bearer realm=\"sluice-cluster\", error=\"invalid_token\"")])
        }
        return nil
    }
}
