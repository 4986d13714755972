import SluiceSignaling

/// Access tokens come from any client (`connect`'s `token`, the WHIP/WHEP bearer). Three checks
/// per input: the input as a token must be refused or accepted without a crash; base64url
/// decoding must be canonical (what decodes re-encodes to the same text); and the input as the
/// payload of a correctly signed token must never be refused for its signature.
private let secret = "fuzz-secret-that-is-at-least-32-bytes"
private let verifier = AccessTokenVerifier(secrets: ["app": [secret]])
private let now = 1_800_000_000.0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    _ = try? verifier.verify(text, now: now)
    _ = try? verifier.verify(text, expectedApp: "app", now: now)

    if let decoded = Base64URL.decode(bytes), Base64URL.encode(decoded) != String(decoding: bytes, as: UTF8.self) {
        fatalError("base64url accepted a non-canonical text")
    }

    let signingInput = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8)) + "." + Base64URL.encode(bytes)
    let signature = HMACDigest.sha256(key: Array(secret.utf8), message: Array(signingInput.utf8))
    let token = signingInput + "." + Base64URL.encode(signature)
    do {
        _ = try verifier.verify(token, now: now)
    } catch {
        if error == .badSignature { fatalError("a correctly signed token was refused for its signature") }
    }
    return 0
}
