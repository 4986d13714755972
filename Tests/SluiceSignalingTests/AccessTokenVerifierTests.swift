import Foundation
import SluiceJSON
@testable import SluiceSignaling
import Testing

/// RFC 7515 appendix A.1 (also RFC 7519 section 3.1): the HS256 example, with its key.
enum RFC7515 {
    static let key = Base64URL.decode(Array(
        "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow".utf8))!
    static let token = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    /// The payload's `exp`.
    static let exp = 1_300_819_380.0
}

let testSecret = "a-test-secret-of-at-least-32-bytes!"
let testNow = 1_800_000_000.0

/// Signs `claims` (as given, any JSON) under `secret` with a header of the caller's choice.
func forgeToken(header: JSONValue = ["alg": "HS256", "typ": "JWT"], claims: JSONValue, secret: String = testSecret) -> String {
    let input = Base64URL.encode(header.serializedBytes()) + "." + Base64URL.encode(claims.serializedBytes())
    return input + "." + Base64URL.encode(HMACDigest.sha256(key: Array(secret.utf8), message: Array(input.utf8)))
}

@Suite struct AccessTokenVerifierTests {
    let verifier = AccessTokenVerifier(secrets: ["demo": ["an-old-secret-being-rotated-out!!", testSecret]])

    func valid(_ extra: JSONObject = [:]) -> JSONValue {
        var claims: JSONObject = ["iss": "demo", "sub": "alice", "exp": JSONValue(Int64(testNow) + 3600)]
        for (k, v) in extra { claims[k] = v }
        return .object(claims)
    }

    func refusal(_ token: String, expectedApp: String? = nil, now: Double = testNow) -> AccessTokenError? {
        do {
            _ = try verifier.verify(token, expectedApp: expectedApp, now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test func rfc7515ExampleVerifiesWithItsKey() throws {
        let rfc = AccessTokenVerifier(keys: ["joe": [RFC7515.key]])
        let token = try rfc.verify(RFC7515.token, now: RFC7515.exp - 60)
        #expect(token.appKey == "joe")
        #expect(token.expiresAt == RFC7515.exp)
        #expect(token.identity == nil)
        // An unknown claim (`http://example.com/is_root`) is ignored; no grant lists: nothing granted.
        #expect(token.grants.publish == [] && token.grants.play == [])
        #expect(!token.grants.allowsPublish("x") && !token.grants.allowsPlay("x"))
        // The same token past its exp (plus leeway), and under another key.
        #expect(throws: AccessTokenError.expired) { try rfc.verify(RFC7515.token, now: RFC7515.exp + 31) }
        let other = AccessTokenVerifier(keys: ["joe": [Array(RFC7515.key.reversed())]])
        #expect(throws: AccessTokenError.badSignature) { try other.verify(RFC7515.token, now: RFC7515.exp - 60) }
    }

    @Test func signerOutputVerifiesWithEverySecretOfTheApp() throws {
        let claims: JSONObject = ["iss": "demo", "sub": "bob", "exp": JSONValue(Int64(testNow) + 60),
                                  "nbf": JSONValue(Int64(testNow) - 60), "publish": ["cam-*", "studio"],
                                  "play": ["*"], "maxBitrateKbps": 800, "maxWidth": 640, "maxHeight": 360,
                                  "maxFps": 15, "record": true, "admin": true]
        for secret in ["an-old-secret-being-rotated-out!!", testSecret] {
            let token = try verifier.verify(AccessTokenSigner.sign(claims: claims, secret: secret), now: testNow)
            #expect(token.appKey == "demo")
            #expect(token.identity == "bob")
            #expect(token.notBefore == testNow - 60)
            #expect(token.grants.caps == PublishLimits(maxBitrateKbps: 800, maxWidth: 640, maxHeight: 360, maxFps: 15))
            #expect(token.grants.record && token.grants.admin)
            #expect(token.grants.allowsPublish("cam-1") && token.grants.allowsPublish("cam-") && token.grants.allowsPublish("studio"))
            #expect(!token.grants.allowsPublish("studio2") && !token.grants.allowsPublish("cam"))
            #expect(token.grants.allowsPlay("anything"))
        }
    }

    @Test func eachRefusalHasItsOwnReason() {
        let good = forgeToken(claims: valid())
        var parts = good.split(separator: ".").map(String.init)
        // A payload changed after signing: the same claims but another identity.
        parts[1] = Base64URL.encode(valid(["sub": "mallory"]).serializedBytes())
        let tampered = parts.joined(separator: ".")
        let cases: [(String, String, AccessTokenError?)] = [
            ("valid", good, nil),
            ("expired", forgeToken(claims: valid(["exp": JSONValue(Int64(testNow) - 3600)])), .expired),
            ("no exp", forgeToken(claims: ["iss": "demo"]), .expired),
            ("not yet valid", forgeToken(claims: valid(["nbf": JSONValue(Int64(testNow) + 3600)])), .notYetValid),
            ("bad signature", forgeToken(claims: valid(), secret: "another-secret-of-at-least-32-bytes"), .badSignature),
            ("tampered payload", tampered, .badSignature),
            ("unknown iss", forgeToken(claims: valid(["iss": "elsewhere"])), .unknownIssuer("no app with secrets has the key in 'iss'")),
            ("no iss", forgeToken(claims: ["exp": JSONValue(Int64(testNow) + 60)]), .unknownIssuer("the token has no 'iss' (the app key)")),
            ("alg none", Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + parts[1] + ".", .unsupportedAlgorithm("none")),
            ("alg HS512", forgeToken(header: ["alg": "HS512"], claims: valid()), .unsupportedAlgorithm("HS512")),
            ("alg RS256", forgeToken(header: ["alg": "RS256"], claims: valid()), .unsupportedAlgorithm("RS256")),
            ("two parts", parts[0] + "." + parts[1], .malformed("expected three dot-separated parts, found 2")),
            ("padding", good + "=", .malformed("the signature is not base64url")),
            ("not JSON", Base64URL.encode(Array("hello".utf8)) + "." + parts[1] + "." + parts[2], .malformed("the header is not JSON")),
            ("array payload", forgeToken(claims: [1, 2]), .malformed("the payload is not a JSON object")),
            ("publish a string", forgeToken(claims: valid(["publish": "cam"])), .malformed("'publish' must be an array of stream names")),
            ("record a string", forgeToken(claims: valid(["record": "yes"])), .malformed("'record' must be a boolean")),
            ("cap zero", forgeToken(claims: valid(["maxWidth": 0])), .malformed("'maxWidth' must be a whole number from 1 to 16384")),
            ("sub a number", forgeToken(claims: valid(["sub": 7])), .malformed("'sub' must be a string")),
            ("crit", forgeToken(header: ["alg": "HS256", "crit": ["exp"]], claims: valid()),
             .malformed("the header has 'crit' extensions, which are not supported")),
            ("empty", "", .malformed("the token is empty")),
            ("too long", String(repeating: "a", count: 9000), .malformed("longer than 8192 bytes")),
        ]
        var reasons: [String: Set<String>] = [:]
        for (name, token, expected) in cases {
            let got = refusal(token)
            #expect(got == expected, "\(name)")
            if let got { reasons[got.reason, default: []].insert(name) }
        }
        #expect(Set(reasons.keys) == ["TOKEN_EXPIRED", "TOKEN_NOT_YET_VALID", "TOKEN_BAD_SIGNATURE", "TOKEN_UNKNOWN_ISSUER",
                                      "TOKEN_UNSUPPORTED_ALGORITHM", "TOKEN_MALFORMED"])
    }

    @Test func leewayOfThirtySecondsEitherSide() {
        let exp = Int64(testNow)
        let token = forgeToken(claims: valid(["exp": JSONValue(exp), "nbf": JSONValue(exp)]))
        #expect(refusal(token, now: testNow + 30) == nil)
        #expect(refusal(token, now: testNow + 31) == .expired)
        #expect(refusal(token, now: testNow - 30) == nil)
        #expect(refusal(token, now: testNow - 31) == .notYetValid)
    }

    @Test func issuerMustBeTheAppKeyGivenBesideIt() {
        let token = forgeToken(claims: valid())
        #expect(refusal(token, expectedApp: "demo") == nil)
        #expect(refusal(token, expectedApp: "other") == .unknownIssuer("'iss' is not the app key given with it"))
    }

    @Test func fractionalTimesAreNumericDates() {
        #expect(refusal(forgeToken(claims: valid(["exp": JSONValue(testNow + 0.5)]))) == nil)
    }

    @Test func base64URLIsStrictAndRoundTrips() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(Array(text.utf8)) == bytes)
        }
        #expect(Base64URL.decode(Array("YQ".utf8)) == [0x61])
        #expect(Base64URL.decode(Array("YR".utf8)) == nil)   // unused bits set: not canonical
        #expect(Base64URL.decode(Array("Y".utf8)) == nil)    // 1 mod 4
        #expect(Base64URL.decode(Array("YQ==".utf8)) == nil) // padding
        #expect(Base64URL.decode(Array("a+b/".utf8)) == nil) // the other alphabet
    }

    @Test func tokenFormTellsTokensFromAppKeys() {
        #expect(AccessTokenVerifier.looksLikeToken("a.b.c"))
        #expect(!AccessTokenVerifier.looksLikeToken("defaultApp"))
        #expect(!AccessTokenVerifier.looksLikeToken("a.b"))
    }
}
