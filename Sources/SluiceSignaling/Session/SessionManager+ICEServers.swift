import SluiceJSON

extension SessionManager {
    /// `connect`'s `iceServers`: each configured TURN server with a fresh credential whose
    /// user part is `user` (the session id; an identity from a token fits as well). coturn logs
    /// that name with each allocation, so a relay's traffic can be traced to its session.
    func iceServers(user: String) -> JSONValue {
        let now = wallClockMillis() / 1000
        return .array(config.turnServers.map { $0.iceServer(user: user, nowSeconds: now) })
    }
}
