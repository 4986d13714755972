import SluiceJSON
import SluiceSignaling
import Testing
@testable import SluiceServer

/// `rtc.turn`: `[{urls, secret, ttlSeconds}]`.
struct TURNConfigTests {
    private func parse(_ text: String) throws -> ServerConfig {
        try parseConfig(text)
    }

    @Test func serversAreRead() throws {
        let config = try parse(#"""
            {"rtc": {"turn": [
              {"urls": ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:443?transport=tcp"],
               "secret": "north", "ttlSeconds": 3600},
              {"urls": ["turn:[2001:db8::1]"], "secret": "south"}]}}
            """#)
        #expect(config.turnServers == [
            TURNServer(urls: ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:443?transport=tcp"],
                       secret: "north", ttlSeconds: 3600),
            TURNServer(urls: ["turn:[2001:db8::1]"], secret: "south", ttlSeconds: 86_400),
        ])
        #expect(try parse("{}").turnServers.isEmpty)
        #expect(try parse(#"{"rtc": {"turn": []}}"#).turnServers.isEmpty)
    }

    @Test(arguments: [
        (#"{"rtc": {"turn": {"urls": ["turn:x"], "secret": "s"}}}"#, "rtc.turn", "must be an array"),
        (#"{"rtc": {"turn": ["turn:x"]}}"#, "rtc.turn[0]", "must be an object"),
        (#"{"rtc": {"turn": [{"secret": "s"}]}}"#, "rtc.turn[0].urls", "is required"),
        (#"{"rtc": {"turn": [{"urls": [], "secret": "s"}]}}"#, "rtc.turn[0].urls", "is required"),
        (#"{"rtc": {"turn": [{"urls": "turn:x", "secret": "s"}]}}"#, "rtc.turn[0].urls", "must be an array"),
        (#"{"rtc": {"turn": [{"urls": ["stun:x"], "secret": "s"}]}}"#, "rtc.turn[0].urls[0]", "turn: or turns:"),
        (#"{"rtc": {"turn": [{"urls": ["turn:x", "turn:x:99999"], "secret": "s"}]}}"#, "rtc.turn[0].urls[1]", "port"),
        (#"{"rtc": {"turn": [{"urls": ["turn:x"]}]}}"#, "rtc.turn[0].secret", "static-auth-secret"),
        (#"{"rtc": {"turn": [{"urls": ["turn:x"], "secret": ""}]}}"#, "rtc.turn[0].secret", "is required"),
        (#"{"rtc": {"turn": [{"urls": ["turn:x"], "secret": "s", "ttlSeconds": 10}]}}"#, "rtc.turn[0].ttlSeconds", "between 60"),
        (#"{"rtc": {"turn": [{"urls": ["turn:x"], "secret": "s", "ttl": 60}]}}"#, "rtc.turn[0].ttl", "not a known setting"),
    ])
    func badEntriesNameTheKey(text: String, key: String, problem: String) throws {
        try expectConfigError(text, key: key, problem: problem)
    }
}
