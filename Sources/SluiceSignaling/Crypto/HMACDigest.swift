import COpenSSL

/// HMAC through OpenSSL, for the hook signatures (SHA-256), access tokens (SHA-256) and TURN
/// credentials (SHA-1).
public enum HMACDigest {
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        digest(EVP_sha256(), size: 32, key: key, message: message)
    }

    public static func sha1(key: [UInt8], message: [UInt8]) -> [UInt8] {
        digest(EVP_sha1(), size: 20, key: key, message: message)
    }

    private static func digest(_ md: OpaquePointer?, size: Int, key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: size)
        var length: UInt32 = 0
        // OpenSSL reads a null pointer as "no key" even with length 0: never hand it one.
        let keyStorage = key.isEmpty ? [0] : key
        let messageStorage = message.isEmpty ? [0] : message
        keyStorage.withUnsafeBufferPointer { keyBytes in
            messageStorage.withUnsafeBufferPointer { messageBytes in
                digest.withUnsafeMutableBufferPointer { out in
                    _ = HMAC(md, keyBytes.baseAddress, Int32(key.count),
                             messageBytes.baseAddress, message.count, out.baseAddress, &length)
                }
            }
        }
        return Array(digest.prefix(Int(length)))
    }
}
