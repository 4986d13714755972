import Foundation
import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// Who a session is and what it may do: an app key alone, or an access token
/// (docs/protocol.md section 6, "Access tokens"). `connect` and WHIP/WHEP ask the same way.
public struct SessionAccess: Equatable, Sendable {
    public var appKey: String
    public var identity: String?
    public var grants: AccessGrants
}

/// Why `checkAccess` refused: an unknown app key (1001, and the socket closes) or a token (1011).
public enum AccessRefusal: Error, Equatable {
    case unknownAppKey
    case token(AccessTokenError)
}

extension ConnectHandler {
    /// `appKey` and `token` as `connect` gives them; at least one is set.
    func checkAccess(appKey: String?, token: String?) throws(AccessRefusal) -> SessionAccess {
        let config = table.config
        if let appKey, config.app(withKey: appKey) == nil { throw .unknownAppKey }
        guard let token else {
            guard let appKey, let app = config.app(withKey: appKey) else { throw .unknownAppKey }
            if app.requireToken { throw .token(.required) }
            return SessionAccess(appKey: appKey, identity: nil, grants: .unrestricted)
        }
        let now = Double(table.wallClockMillis()) / 1000
        do throws(AccessTokenError) {
            let verified = try config.tokenVerifier.verify(token, expectedApp: appKey, now: now)
            return SessionAccess(appKey: verified.appKey, identity: verified.identity, grants: verified.grants)
        } catch {
            throw .token(error)
        }
    }
}
