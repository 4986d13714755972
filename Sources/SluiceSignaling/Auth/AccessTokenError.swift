/// Why an access token was refused (docs/protocol.md section 6, "Access tokens"): each has its
/// own `reason`, answered as error 1011 over the WebSocket and 401 over WHIP/WHEP.
public enum AccessTokenError: Error, Equatable, Sendable {
    /// The app requires a token and only an app key was given.
    case required
    /// Not three base64url parts of JSON objects, too long, or a claim of the wrong type.
    case malformed(String)
    case unsupportedAlgorithm(String)
    /// `iss` names no configured app, or not the app key given beside the token.
    case unknownIssuer(String)
    case badSignature
    case expired
    case notYetValid

    public var reason: String {
        switch self {
        case .required: return "TOKEN_REQUIRED"
        case .malformed: return "TOKEN_MALFORMED"
        case .unsupportedAlgorithm: return "TOKEN_UNSUPPORTED_ALGORITHM"
        case .unknownIssuer: return "TOKEN_UNKNOWN_ISSUER"
        case .badSignature: return "TOKEN_BAD_SIGNATURE"
        case .expired: return "TOKEN_EXPIRED"
        case .notYetValid: return "TOKEN_NOT_YET_VALID"
        }
    }

    /// What the client is told (and the log line): the cause, never the secret or the claims' values beyond what it sent.
    public var message: String {
        switch self {
        case .required: return "Token required: this app does not accept an app key alone"
        case .malformed(let detail): return "Malformed token: \(detail)"
        case .unsupportedAlgorithm(let alg): return "Unsupported token algorithm '\(alg)': only HS256 is accepted"
        case .unknownIssuer(let detail): return "Unknown token issuer: \(detail)"
        case .badSignature: return "Bad token signature"
        case .expired: return "Token expired"
        case .notYetValid: return "Token not yet valid"
        }
    }
}
