import COpenSSL

/// `X-Sluice-Signature: sha256=<hex HMAC-SHA256 of the exact body bytes under the app's secret>`.
public enum HookSignature {
    public static let headerName = "X-Sluice-Signature"

    /// The header value for `body` under `secret`.
    public static func header(secret: String, body: [UInt8]) -> String {
        "sha256=" + hex(hmacSHA256(key: Array(secret.utf8), message: body))
    }

    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // OpenSSL reads a null pointer as "no key" even with length 0: never hand it one.
        let keyStorage = key.isEmpty ? [0] : key
        let messageStorage = message.isEmpty ? [0] : message
        keyStorage.withUnsafeBufferPointer { keyBytes in
            messageStorage.withUnsafeBufferPointer { messageBytes in
                digest.withUnsafeMutableBufferPointer { out in
                    _ = HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(key.count),
                             messageBytes.baseAddress, message.count, out.baseAddress, &length)
                }
            }
        }
        return Array(digest.prefix(Int(length)))
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
