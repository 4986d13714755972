import SluiceJSON

/// Mints HS256 tokens: `sluice token create`, and the tests. A backend in any language does
/// the same (docs/protocol.md section 6, "Access tokens").
public enum AccessTokenSigner {
    public static func sign(claims: JSONObject, secret: String) -> String {
        let header: JSONValue = ["alg": "HS256", "typ": "JWT"]
        let signingInput = Base64URL.encode(header.serializedBytes()) + "." + Base64URL.encode(JSONValue.object(claims).serializedBytes())
        let signature = HMACDigest.sha256(key: Array(secret.utf8), message: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}
