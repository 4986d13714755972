import SluiceSignaling

/// The bearer-token check of the admin endpoints (docs/protocol.md section 2). An empty token
/// in the config turns the admin API off rather than leaving it open.
public struct AdminAuthorization: Sendable {
    private let token: [UInt8]

    public init(token: String) {
        self.token = Array(token.utf8)
    }

    public var isEnabled: Bool { !token.isEmpty }

    /// nil when the request may go on; otherwise the 403 or 401 to answer with.
    public func refusal(for request: HTTPRequest) -> HTTPResponse? {
        guard isEnabled else {
            return .error(status: 403, message: "The admin API is disabled: set admin.token in the config to enable it",
                          reason: "ADMIN_API_DISABLED")
        }
        guard let presented = AdminAuthorization.bearerToken(request.header("authorization")) else {
            return .error(status: 401, message: "An 'Authorization: Bearer <admin token>' header is required",
                          reason: "UNAUTHORIZED", headers: [("www-authenticate", "Bearer realm=\"sluice\"")])
        }
        guard AdminAuthorization.constantTimeEquals(Array(presented.utf8), token) else {
            return .error(status: 401, message: "The admin token is wrong", reason: "UNAUTHORIZED",
                          headers: [("www-authenticate", "Bearer realm=\"sluice\", error=\"invalid_token\"")])
        }
        return nil
    }

    /// The token of `Bearer <token>`; the scheme is case-insensitive (RFC 7235).
    static func bearerToken(_ header: String?) -> String? {
        HTTPRequest.bearerToken(header)
    }

    /// Time depends on the presented length only, never on where the first difference is
    /// nor on the secret's content.
    static func constantTimeEquals(_ presented: [UInt8], _ secret: [UInt8]) -> Bool {
        guard !secret.isEmpty else { return false }
        var difference = UInt64(presented.count ^ secret.count)
        for i in 0..<presented.count {
            difference |= UInt64(presented[i] ^ secret[i % secret.count])
        }
        return difference == 0
    }
}
