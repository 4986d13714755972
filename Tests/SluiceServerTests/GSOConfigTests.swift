import Testing
@testable import SluiceServer

/// `rtc.gso`: UDP GSO for the media workers' send batches.
struct GSOConfigTests {
    @Test func isOnByDefaultAndCanBeTurnedOff() throws {
        #expect(try parseConfig("{}").udpSegmentation)
        #expect(try parseConfig(#"{"rtc": {"gso": false}}"#).udpSegmentation == false)
        #expect(try parseConfig(#"{"rtc": {"gso": true}}"#).udpSegmentation)
    }

    @Test func refusesANonBooleanNamingTheKey() throws {
        try expectConfigError(#"{"rtc": {"gso": "yes"}}"#, key: "rtc.gso", problem: "must be true or false")
        try expectConfigError(#"{"rtc": {"gso": 1}}"#, key: "rtc.gso", problem: "must be true or false")
    }
}
