/// The DTLS-SRTP protection profiles Sluice negotiates (RFC 5764 section 4.1.2, RFC 7714
/// section 14.2), with the master key and salt sizes each one takes.
public enum SRTPProfile: UInt16, Sendable, CaseIterable {
    case aes128CMHMACSHA1_80 = 0x0001
    case aeadAES128GCM = 0x0007

    public var keyLength: Int { 16 }

    public var saltLength: Int {
        switch self {
        case .aes128CMHMACSHA1_80: return 14
        case .aeadAES128GCM: return 12
        }
    }

    /// The crypto-suite name (RFC 4568, RFC 7714 section 14.1), as `rtc.srtpProfiles` spells it.
    public var name: String {
        switch self {
        case .aes128CMHMACSHA1_80: return "AES_CM_128_HMAC_SHA1_80"
        case .aeadAES128GCM: return "AEAD_AES_128_GCM"
        }
    }

    public init?(name: String) {
        guard let profile = SRTPProfile.allCases.first(where: { $0.name == name }) else { return nil }
        self = profile
    }

    /// The name OpenSSL's `use_srtp` list uses.
    public var openSSLName: String {
        switch self {
        case .aes128CMHMACSHA1_80: return "SRTP_AES128_CM_SHA1_80"
        case .aeadAES128GCM: return "SRTP_AEAD_AES_128_GCM"
        }
    }
}
