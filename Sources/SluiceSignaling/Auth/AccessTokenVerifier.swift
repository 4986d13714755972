import SluiceJSON
import SluiceJSONParser

/// Checks a compact JWS (RFC 7515) HS256 token, in the order of docs/protocol.md section 6
/// ("Access tokens"): form, algorithm, issuer, signature, validity time, then the claims' types.
/// The signature is checked before any claim but `iss` is trusted, since `iss` only picks the
/// secrets to try.
public struct AccessTokenVerifier: Sendable {
    /// Longer tokens are refused before any decoding (they also bound the WHIP header).
    public static let maxTokenBytes = 8192
    /// Allowed clock skew between the minting backend and this server, either way.
    public static let leewaySeconds: Double = 30

    /// An app's signing keys by app key; several while a secret rotates.
    public var keys: [String: [[UInt8]]]

    /// Secrets as the config holds them: the key is the secret's UTF-8 bytes.
    public init(secrets: [String: [String]]) {
        keys = secrets.mapValues { $0.map { Array($0.utf8) } }
    }

    /// Raw key bytes (RFC 7515's example key is not text).
    public init(keys: [String: [[UInt8]]]) {
        self.keys = keys
    }

    /// `expectedApp`: the `appKey` given beside the token, which `iss` must equal.
    /// `now`: seconds since the epoch.
    public func verify(_ token: String, expectedApp: String? = nil, now: Double) throws(AccessTokenError) -> AccessToken {
        let bytes = Array(token.utf8)
        guard !bytes.isEmpty else { throw .malformed("the token is empty") }
        guard bytes.count <= Self.maxTokenBytes else {
            throw .malformed("longer than \(Self.maxTokenBytes) bytes")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("expected three dot-separated parts, found \(parts.count)") }
        let header = try Self.jsonObject(parts[0], part: "header")
        let claims = try Self.jsonObject(parts[1], part: "payload")
        guard let signature = Base64URL.decode(parts[2]) else { throw .malformed("the signature is not base64url") }

        guard let algValue = header["alg"] else { throw .malformed("the header has no 'alg'") }
        guard let alg = algValue.stringValue else { throw .malformed("'alg' must be a string") }
        guard alg == "HS256" else { throw .unsupportedAlgorithm(alg) }
        // RFC 7515 4.1.11: a critical extension this server does not know makes the token invalid.
        if header["crit"] != nil { throw .malformed("the header has 'crit' extensions, which are not supported") }

        guard let issuer = claims["iss"]?.stringValue, !issuer.isEmpty else {
            throw .unknownIssuer("the token has no 'iss' (the app key)")
        }
        if let expectedApp, expectedApp != issuer {
            throw .unknownIssuer("'iss' is not the app key given with it")
        }
        guard let appKeys = keys[issuer], !appKeys.isEmpty else {
            throw .unknownIssuer("no app with secrets has the key in 'iss'")
        }
        // The signing input is the first two parts exactly as sent, with their dot.
        let signingInput = Array(bytes[..<parts[1].endIndex])
        let matches = appKeys.contains { key in
            Self.constantTimeEqual(HMACDigest.sha256(key: key, message: signingInput), signature)
        }
        guard matches else { throw .badSignature }

        guard let expValue = claims["exp"] else { throw .expired }
        guard let exp = expValue.doubleValue else { throw .malformed("'exp' must be a number") }
        guard now <= exp + Self.leewaySeconds else { throw .expired }
        var notBefore: Double?
        if let nbfValue = claims["nbf"] {
            guard let nbf = nbfValue.doubleValue else { throw .malformed("'nbf' must be a number") }
            guard now + Self.leewaySeconds >= nbf else { throw .notYetValid }
            notBefore = nbf
        }
        var identity: String?
        if let sub = claims["sub"] {
            guard let text = sub.stringValue else { throw .malformed("'sub' must be a string") }
            identity = text
        }
        let grants = AccessGrants(
            publish: try Self.patterns(claims["publish"], claim: "publish"),
            play: try Self.patterns(claims["play"], claim: "play"),
            caps: PublishLimits(maxBitrateKbps: try Self.cap(claims["maxBitrateKbps"], "maxBitrateKbps", 10_000_000),
                                maxWidth: try Self.cap(claims["maxWidth"], "maxWidth", 16384),
                                maxHeight: try Self.cap(claims["maxHeight"], "maxHeight", 16384),
                                maxFps: try Self.cap(claims["maxFps"], "maxFps", 1000)),
            record: try Self.flag(claims["record"], "record"),
            admin: try Self.flag(claims["admin"], "admin"))
        return AccessToken(appKey: issuer, identity: identity, expiresAt: exp, notBefore: notBefore, grants: grants)
    }

    /// Whether `text` has the form of a compact JWS (two dots), to tell a token from an app key.
    public static func looksLikeToken(_ text: String) -> Bool {
        text.utf8.count(where: { $0 == UInt8(ascii: ".") }) == 2
    }

    private static func jsonObject(_ part: ArraySlice<UInt8>, part name: String) throws(AccessTokenError) -> JSONObject {
        guard let decoded = Base64URL.decode(part) else { throw .malformed("the \(name) is not base64url") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(decoded)
        } catch {
            throw .malformed("the \(name) is not JSON")
        }
        guard let object = value.objectValue else { throw .malformed("the \(name) is not a JSON object") }
        return object
    }

    /// A missing or empty list grants nothing (an empty array, not "no restriction").
    private static func patterns(_ value: JSONValue?, claim: String) throws(AccessTokenError) -> [StreamNamePattern] {
        guard let value else { return [] }
        guard let array = value.arrayValue else { throw .malformed("'\(claim)' must be an array of stream names") }
        var out: [StreamNamePattern] = []
        for item in array {
            guard let text = item.stringValue, !text.isEmpty else {
                throw .malformed("'\(claim)' must hold non-empty strings")
            }
            out.append(StreamNamePattern(text))
        }
        return out
    }

    private static func cap(_ value: JSONValue?, _ claim: String, _ max: Int64) throws(AccessTokenError) -> Int? {
        guard let value else { return nil }
        guard let number = value.intValue, number >= 1, number <= max else {
            throw .malformed("'\(claim)' must be a whole number from 1 to \(max)")
        }
        return Int(number)
    }

    private static func flag(_ value: JSONValue?, _ claim: String) throws(AccessTokenError) -> Bool {
        guard let value else { return false }
        guard let flag = value.boolValue else { throw .malformed("'\(claim)' must be a boolean") }
        return flag
    }

    /// Compares without an early exit, so the time taken does not tell how many bytes matched.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
