
/// `X-Sluice-Signature: sha256=<hex HMAC-SHA256 of the exact body bytes under the app's secret>`.
public enum HookSignature {
    public static let headerName = "X-Sluice-Signature"

    /// The header value for `body` under `secret`.
    public static func header(secret: String, body: [UInt8]) -> String {
        "sha256=" + hex(HMACDigest.sha256(key: Array(secret.utf8), message: body))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
