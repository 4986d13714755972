import COpenSSL

/// The session keys of one SRTP session: an encryption key and salt (and, for AES-CM, an
/// authentication key) for RTP and again for SRTCP.
struct SRTPSessionKeys {
    var rtpKey: [UInt8]
    var rtpSalt: [UInt8]
    /// Empty for AEAD_AES_128_GCM, which authenticates with its own tag.
    var rtpAuthKey: [UInt8]
    var rtcpKey: [UInt8]
    var rtcpSalt: [UInt8]
    var rtcpAuthKey: [UInt8]

    mutating func wipe() {
        for i in rtpKey.indices { rtpKey[i] = 0 }
        for i in rtpSalt.indices { rtpSalt[i] = 0 }
        for i in rtpAuthKey.indices { rtpAuthKey[i] = 0 }
        for i in rtcpKey.indices { rtcpKey[i] = 0 }
        for i in rtcpSalt.indices { rtcpSalt[i] = 0 }
        for i in rtcpAuthKey.indices { rtcpAuthKey[i] = 0 }
    }
}

/// The key derivation of RFC 3711 section 4.3 with a key derivation rate of 0 (what
/// DTLS-SRTP uses): each session key is the AES-CM keystream, under the master key, from an
/// IV made of the master salt XOR the key's label. Done once per session, so it may allocate.
///
/// AEAD_AES_128_GCM derives its keys the same way (RFC 7714 section 11) from a 12-byte master
/// salt, taken as the first 12 of the 14 bytes (the last two 0), as libsrtp does.
enum SRTPKeyDerivation {
    /// RFC 3711 section 4.3.2.
    enum Label: UInt8 {
        case rtpEncryption = 0, rtpAuthentication = 1, rtpSalt = 2
        case rtcpEncryption = 3, rtcpAuthentication = 4, rtcpSalt = 5
    }

    /// HMAC-SHA1's key for SRTP (RFC 3711 section 8.2: 160 bits).
    static let authKeyLength = 20

    static func sessionKeys(profile: SRTPProfile, masterKey: [UInt8], masterSalt: [UInt8]) -> SRTPSessionKeys? {
        let saltLength = profile.saltLength
        let authLength = profile == .aes128CMHMACSHA1_80 ? authKeyLength : 0
        func derive(_ label: Label, _ count: Int) -> [UInt8]? {
            count == 0 ? [] : key(label: label, masterKey: masterKey, masterSalt: masterSalt, count: count)
        }
        guard let rtpKey = derive(.rtpEncryption, profile.keyLength), let rtpSalt = derive(.rtpSalt, saltLength),
              let rtpAuthKey = derive(.rtpAuthentication, authLength),
              let rtcpKey = derive(.rtcpEncryption, profile.keyLength), let rtcpSalt = derive(.rtcpSalt, saltLength),
              let rtcpAuthKey = derive(.rtcpAuthentication, authLength)
        else { return nil }
        return SRTPSessionKeys(rtpKey: rtpKey, rtpSalt: rtpSalt, rtpAuthKey: rtpAuthKey,
                               rtcpKey: rtcpKey, rtcpSalt: rtcpSalt, rtcpAuthKey: rtcpAuthKey)
    }

    /// One session key: `count` bytes of keystream from IV = (salt XOR label at byte 7) * 2^16.
    static func key(label: Label, masterKey: [UInt8], masterSalt: [UInt8], count: Int) -> [UInt8]? {
        guard masterSalt.count <= 14 else { return nil }
        var iv = [UInt8](repeating: 0, count: 16)
        for (i, byte) in masterSalt.enumerated() { iv[i] = byte }
        // key_id = label || r, with r = index DIV kdr = 0, right-aligned against the 112-bit salt.
        iv[7] ^= label.rawValue
        defer { for i in iv.indices { iv[i] = 0 } }
        return aesCounterKeystream(key: masterKey, iv: iv, count: count)
    }

    /// AES-128 in counter mode over zeros: the keystream from a 16-byte initial counter block
    /// (RFC 3711 section 4.1.1; Appendix B.2 has its vectors).
    static func aesCounterKeystream(key: [UInt8], iv: [UInt8], count: Int) -> [UInt8]? {
        guard key.count == 16, iv.count == 16, count >= 0, count <= Int(Int32.max),
              let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: count)
        guard EVP_EncryptInit_ex(context, EVP_aes_128_ctr(), nil, key, iv) == 1 else { return nil }
        if count == 0 { return output }
        var written: Int32 = 0
        let ok = output.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptUpdate(context, buffer.baseAddress, &written, buffer.baseAddress, Int32(count)) == 1
        }
        return ok && Int(written) == count ? output : nil
    }
}
