import SluiceTransport
import Testing
@testable import SluiceServer

/// `rtc.srtp` (what runs SRTP) and `rtc.srtpProfiles` (the DTLS-SRTP profiles offered).
struct SRTPConfigTests {
    @Test func defaultsToOpenSSLWithGCMFirst() throws {
        let config = try parseConfig("{}")
        #expect(config.srtp.backend == .openSSL)
        #expect(config.srtp.profiles == [.aeadAES128GCM, .aes128CMHMACSHA1_80])
    }

    @Test func readsTheBackEndAndTheProfilesInOrder() throws {
        #expect(try parseConfig(#"{"rtc": {"srtp": "libsrtp"}}"#).srtp.backend == .libsrtp)
        #expect(try parseConfig(#"{"rtc": {"srtp": "openssl"}}"#).srtp.backend == .openSSL)
        let forced = try parseConfig(#"{"rtc": {"srtpProfiles": ["AES_CM_128_HMAC_SHA1_80"]}}"#)
        #expect(forced.srtp.profiles == [.aes128CMHMACSHA1_80])
        let both = try parseConfig(#"{"rtc": {"srtpProfiles": ["AES_CM_128_HMAC_SHA1_80", "AEAD_AES_128_GCM"]}}"#)
        #expect(both.srtp.profiles == [.aes128CMHMACSHA1_80, .aeadAES128GCM])
    }

    @Test func refusesBadValuesNamingTheKey() throws {
        try expectConfigError(#"{"rtc": {"srtp": "nss"}}"#, key: "rtc.srtp", problem: "must be one of libsrtp, openssl")
        try expectConfigError(#"{"rtc": {"srtp": true}}"#, key: "rtc.srtp", problem: "must be a string")
        try expectConfigError(#"{"rtc": {"srtpProfiles": []}}"#, key: "rtc.srtpProfiles", problem: "at least one")
        try expectConfigError(#"{"rtc": {"srtpProfiles": "AEAD_AES_128_GCM"}}"#, key: "rtc.srtpProfiles",
                              problem: "must be an array")
        try expectConfigError(#"{"rtc": {"srtpProfiles": ["SRTP_AEAD_AES_128_GCM"]}}"#, key: "rtc.srtpProfiles[0]",
                              problem: "must be one of AEAD_AES_128_GCM, AES_CM_128_HMAC_SHA1_80")
        try expectConfigError(#"{"rtc": {"srtpProfiles": ["AEAD_AES_128_GCM", "AEAD_AES_128_GCM"]}}"#,
                              key: "rtc.srtpProfiles[1]", problem: "repeats")
    }
}
