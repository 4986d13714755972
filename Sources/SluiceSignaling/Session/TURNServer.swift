import COpenSSL
import Foundation
import SluiceJSON

/// A TURN server (coturn, run beside Sluice) that clients may relay through, and the
/// short-lived credentials Sluice hands them for it.
///
/// The credentials follow coturn's shared-secret scheme (`use-auth-secret` with
/// `static-auth-secret`, from draft-uberti-behave-turn-rest): the username is
/// `<expiry in Unix seconds>:<user>` and the password is base64(HMAC-SHA1(secret, username)).
/// coturn recomputes the password from the username and refuses one whose expiry has passed,
/// so Sluice and coturn share only the secret: no user database, no call between them.
public struct TURNServer: Sendable, Equatable {
    /// `turn:` or `turns:` URLs (RFC 7065), all of one server: they share the credential.
    public var urls: [String]
    public var secret: String
    /// How long a credential stays valid. coturn checks the expiry on every authenticated
    /// request, refreshes included, so this also bounds how long a relayed call can last.
    public var ttlSeconds: Int

    /// A day: the draft's suggestion. A browser does not fetch new credentials for a running
    /// PeerConnection (and Sluice has no ICE restart), so a shorter TTL would cut relayed
    /// calls at that age; a leaked credential is still usable only for this long, and only
    /// for relaying, which the secret's owner pays for in bandwidth, not in data.
    public static let defaultTTLSeconds = 86_400

    public init(urls: [String], secret: String, ttlSeconds: Int = TURNServer.defaultTTLSeconds) {
        self.urls = urls
        self.secret = secret
        self.ttlSeconds = ttlSeconds
    }

    /// The username and password for `user`, valid until `nowSeconds + ttlSeconds`.
    public func credential(user: String, nowSeconds: Int64) -> (username: String, password: String) {
        let username = "\(nowSeconds + Int64(ttlSeconds)):\(user)"
        let mac = HMACDigest.sha1(key: Array(secret.utf8), message: Array(username.utf8))
        return (username, Data(mac).base64EncodedString())
    }

    /// This server as an RTCIceServer dictionary (W3C webrtc-pc): `urls`, `username`, `credential`.
    public func iceServer(user: String, nowSeconds: Int64) -> JSONValue {
        let (username, password) = credential(user: user, nowSeconds: nowSeconds)
        return ["urls": .array(urls.map { .string($0) }), "username": .string(username),
                "credential": .string(password)]
    }

    /// nil when `url` is a TURN URL a browser accepts (RFC 7065: `turn:` or `turns:`, a host,
    /// an optional port, an optional `?transport=udp|tcp`); otherwise what is wrong with it.
    public static func problem(withURL url: String) -> String? {
        let scheme: String
        if url.hasPrefix("turn:") {
            scheme = "turn:"
        } else if url.hasPrefix("turns:") {
            scheme = "turns:"
        } else {
            return "must start with turn: or turns:"
        }
        var rest = Substring(url.dropFirst(scheme.count))
        if let question = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: question)...]
            rest = rest[..<question]
            guard query == "transport=udp" || query == "transport=tcp" else {
                return "may only end in ?transport=udp or ?transport=tcp"
            }
        }
        // An IPv6 literal is bracketed, so the port is what follows the closing bracket.
        var host = rest
        var port: Substring?
        let bracketed = rest.hasPrefix("[")
        if bracketed {
            guard let close = rest.firstIndex(of: "]") else { return "has an unclosed [ in its host" }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return "has text after its IPv6 address" }
                port = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            port = rest[rest.index(after: colon)...]
        }
        let hostCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-"
                                           + (bracketed ? ":" : ""))
        guard !host.isEmpty, host.unicodeScalars.allSatisfy({ hostCharacters.contains($0) }) else {
            return "needs a host name or address (turn:HOST[:PORT])"
        }
        if let port {
            guard port.allSatisfy({ ("0"..."9").contains($0) }), let number = Int(port), (1...65535).contains(number) else {
                return "has a port that is not a number from 1 to 65535"
            }
        }
        return nil
    }
}
