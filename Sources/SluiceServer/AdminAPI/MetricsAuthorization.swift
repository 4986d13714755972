import SluiceSignaling

/// The bearer-token check of `/metrics` (`metrics.token`). Unlike the admin token, an empty
/// one leaves the endpoint open, as it always was: a scraper on a private network needs none,
/// and turning metrics off by forgetting a key would be a surprise.
struct MetricsAuthorization: Sendable {
    private let token: [UInt8]

    init(token: String) {
        self.token = Array(token.utf8)
    }

    /// nil when the request may read the metrics; otherwise the 401 to answer with.
    func refusal(for request: HTTPRequest) -> HTTPResponse? {
        guard !token.isEmpty else { return nil }
        guard let presented = HTTPRequest.bearerToken(request.header("authorization")) else {
            return .error(status: 401, message: "An 'Authorization: Bearer <metrics token>' header is required",
                          reason: "UNAUTHORIZED", headers: [("www-authenticate", "Bearer realm=\"sluice-metrics\"")])
        }
        guard AdminAuthorization.constantTimeEquals(Array(presented.utf8), token) else {
            return .error(status: 401, message: "The metrics token is wrong", reason: "UNAUTHORIZED",
                          headers: [("www-authenticate", "Bearer realm=\"sluice-metrics\", error=\"invalid_token\"")])
        }
        return nil
    }
}
