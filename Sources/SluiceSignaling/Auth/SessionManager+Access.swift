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

extension SessionManager {
    /// `appKey` and `token` as `connect` gives them; at least one is set.
    public func checkAccess(appKey: String?, token: String?) throws(AccessRefusal) -> SessionAccess {
        if let appKey, config.app(withKey: appKey) == nil { throw .unknownAppKey }
        guard let token else {
            guard let appKey, let app = config.app(withKey: appKey) else { throw .unknownAppKey }
            if app.requireToken { throw .token(.required) }
            return SessionAccess(appKey: appKey, identity: nil, grants: .unrestricted)
        }
        let now = Double(wallClockMillis()) / 1000
        do throws(AccessTokenError) {
            let verified = try config.tokenVerifier.verify(token, expectedApp: appKey, now: now)
            return SessionAccess(appKey: verified.appKey, identity: verified.identity, grants: verified.grants)
        } catch {
            throw .token(error)
        }
    }

    /// 1012 when the session's grants leave out this publish or play (checked after the
    /// params and before the limits, so nothing else is said about a name it may not use).
    func requireGrant(_ role: StreamRole, stream: String, record: Bool, session: RPCSession) throws(RPCError) {
        switch role {
        case .publish:
            guard session.grants.allowsPublish(stream) else { throw .notGranted("publish of '\(stream)'") }
            if record && !session.grants.record { throw .notGranted("recording of '\(stream)'") }
        case .play:
            guard session.grants.allowsPlay(stream) else { throw .notGranted("play of '\(stream)'") }
        }
    }

    /// Whether the session's app stops publishers that stay over a cap.
    func stopsWhenExceeded(_ session: RPCSession) -> Bool {
        session.appKey.flatMap { config.app(withKey: $0) }?.stopWhenExceeded ?? false
    }

    /// The caps on this session's publishers: its app's limits and its token's, the lower of each.
    func publishLimits(of session: RPCSession) -> PublishLimits {
        guard let key = session.appKey, let app = config.app(withKey: key) else { return session.grants.caps }
        return app.limits.tightened(by: session.grants.caps)
    }
}
