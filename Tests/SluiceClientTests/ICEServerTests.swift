import SluiceClient
import Testing

/// `connect`'s `iceServers` read into `ICEServer` values.
struct ICEServerTests {
    @Test func iceServersAreRead() throws {
        let reply = try JSONValue(parsing: #"""
            {"sessionId": "s1", "serverVersion": "9", "iceServers": [
              {"urls": ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:443"],
               "username": "1700086400:s1", "credential": "R8/d1n+QfM93Kuaap8qWIhGpLV4="},
              {"urls": "stun:stun.example.com"},
              {"username": "no urls"}]}
            """#)
        let result = ConnectResult(sessionId: "s1", serverVersion: "9", iceServers: reply["iceServers"]?.arrayValue ?? [])
        #expect(result.servers == [
            ICEServer(urls: ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:443"],
                      username: "1700086400:s1", credential: "R8/d1n+QfM93Kuaap8qWIhGpLV4="),
            ICEServer(urls: ["stun:stun.example.com"]),
        ])
        #expect(ConnectResult(sessionId: "s", serverVersion: "", iceServers: []).servers.isEmpty)
    }
}
