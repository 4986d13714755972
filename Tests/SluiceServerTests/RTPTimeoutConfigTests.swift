import Testing
@testable import SluiceServer

/// `rtc.rtpTimeoutSeconds`: how long a publisher may send no media before it fails.
struct RTPTimeoutConfigTests {
    @Test func defaultsToTenSeconds() throws {
        #expect(try parseConfig("{}").rtpTimeoutSeconds == 10)
    }

    @Test func takesAWholeNumberOfSecondsAndZeroForOff() throws {
        #expect(try parseConfig(#"{"rtc": {"rtpTimeoutSeconds": 2}}"#).rtpTimeoutSeconds == 2)
        #expect(try parseConfig(#"{"rtc": {"rtpTimeoutSeconds": 0}}"#).rtpTimeoutSeconds == 0)
        #expect(try parseConfig(#"{"rtc": {"rtpTimeoutSeconds": 3600}}"#).rtpTimeoutSeconds == 3600)
    }

    @Test func refusesBadValuesNamingTheKey() throws {
        try expectConfigError(#"{"rtc": {"rtpTimeoutSeconds": -1}}"#, key: "rtc.rtpTimeoutSeconds",
                              problem: "must be between 0 and 3600")
        try expectConfigError(#"{"rtc": {"rtpTimeoutSeconds": 3601}}"#, key: "rtc.rtpTimeoutSeconds",
                              problem: "must be between 0 and 3600")
        try expectConfigError(#"{"rtc": {"rtpTimeoutSeconds": 2.5}}"#, key: "rtc.rtpTimeoutSeconds",
                              problem: "must be an integer")
        try expectConfigError(#"{"rtc": {"rtpTimeoutSeconds": "10"}}"#, key: "rtc.rtpTimeoutSeconds",
                              problem: "must be an integer")
    }
}
