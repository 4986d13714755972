import SluiceControl
import SluiceJSON
import SluiceMedia
@testable import SluiceSignaling
import SluiceVocabulary
import Testing
import SluiceLog

/// coturn's shared-secret credentials (use-auth-secret), `connect`'s `iceServers` and the
/// WHIP/WHEP `Link` header fields. The expected passwords were computed independently with
/// Python's hmac module: base64(HMAC-SHA1(secret, username)).
@Suite struct TURNServerTests {
    static let now: Int64 = 1_700_000_000_999  // ms; the credential uses whole seconds

    @Test func credentialIsExpiryColonUserWithHMACSHA1Password() {
        let server = TURNServer(urls: ["turn:127.0.0.1:3478"], secret: "S", ttlSeconds: 86_400)
        let credential = server.credential(user: "s1", nowSeconds: 1_700_000_000)
        #expect(credential.username == "1700086400:s1")
        #expect(credential.password == "R8/d1n+QfM93Kuaap8qWIhGpLV4=")
        let short = TURNServer(urls: ["turn:x"], secret: "north-secret", ttlSeconds: 3600)
        #expect(short.credential(user: "s1", nowSeconds: 1_700_000_000).password == "H1fTITVkaXCBUcqU9X03H8jUmLo=")
        #expect(HMACDigest.sha1(key: [], message: Array("86400:x".utf8)).count == 20)
    }

    @Test(arguments: [
        ("turn:127.0.0.1", nil),
        ("turn:127.0.0.1:3478", nil),
        ("turn:turn.example.com:3478?transport=udp", nil),
        ("turns:turn.example.com:443?transport=tcp", nil),
        ("turn:[::1]:3478", nil),
        ("turn:[2001:db8::1]", nil),
        ("stun:127.0.0.1:3478", "must start with turn: or turns:"),
        ("http://turn.example.com", "must start with turn: or turns:"),
        ("turn:", "needs a host"),
        ("turn://turn.example.com", "needs a host"),
        ("turn:a:b:3478", "needs a host"),
        ("turn:host:0", "port"),
        ("turn:host:65536", "port"),
        ("turn:host:+5", "port"),
        ("turn:host:", "port"),
        ("turn:host?transport=sctp", "transport"),
        ("turn:host?foo=bar", "transport"),
        ("turn:[::1", "unclosed"),
        ("turn:[::1]x", "after its IPv6"),
        ("turn:host name", "needs a host"),
    ] as [(String, String?)])
    func urlValidation(url: String, problem: String?) {
        let found = TURNServer.problem(withURL: url)
        if let problem {
            #expect(found?.contains(problem) == true, "\(url): \(found ?? "accepted")")
        } else {
            #expect(found == nil, "\(url): \(found ?? "")")
        }
    }

    static func manager(_ servers: [TURNServer]) -> SessionManager {
        var config = SignalingConfig(apps: [.init(key: "demo")], serverVersion: "9.9.9")
        config.turnServers = servers
        var counter = 0
        return SessionManager(config: config, media: FakeMediaControl(), log: Log(level: .error),
                              makeSessionID: { counter += 1; return "s\(counter)" },
                              wallClockMillis: { TURNServerTests.now })
    }

    static let servers = [
        TURNServer(urls: ["turn:127.0.0.1:3478?transport=udp", "turn:127.0.0.1:3478?transport=tcp"],
                   secret: "S", ttlSeconds: 86_400),
        TURNServer(urls: ["turns:turn.example.com:443"], secret: "north-secret", ttlSeconds: 3600),
    ]

    @Test func connectHandsOutOneICEServerPerTURNServer() throws {
        let manager = Self.manager(Self.servers)
        let output = RecordingOutput()
        let session = manager.open(output: output)
        manager.receive(#"{"jsonrpc":"2.0","id":1,"method":"connect","params":{"appKey":"demo"}}"#, from: session)
        let iceServers = try #require(output.messages.first?["result"]?["iceServers"])
        #expect(iceServers == [
            ["urls": ["turn:127.0.0.1:3478?transport=udp", "turn:127.0.0.1:3478?transport=tcp"],
             "username": "1700086400:s1", "credential": "R8/d1n+QfM93Kuaap8qWIhGpLV4="],
            ["urls": ["turns:turn.example.com:443"], "username": "1700003600:s1",
             "credential": "H1fTITVkaXCBUcqU9X03H8jUmLo="],
        ])
    }

    @Test func withoutTURNServersICEServersIsEmpty() throws {
        let manager = Self.manager([])
        let output = RecordingOutput()
        manager.receive(#"{"jsonrpc":"2.0","id":1,"method":"connect","params":{"appKey":"demo"}}"#,
                        from: manager.open(output: output))
        #expect(output.messages.first?["result"]?["iceServers"] == [])
    }

    @Test func whipAnswerCarriesOneLinkPerURL() throws {
        let manager = Self.manager(Self.servers)
        let endpoint = WHIPEndpoint(sessions: manager, log: Log(level: .error), runSoon: { _ in })
        let request = HTTPRequest(method: "POST", path: "/whip/cam", query: "",
                                  headers: ["authorization": "Bearer demo", "content-type": "application/sdp"],
                                  body: WHIPHarness.offer)
        let reply = WHIPReply()
        endpoint.handle(request, responder: reply.responder)
        reply.responder.handlerReturned { [unowned reply] response in reply.deferred = response }
        let response = try #require(reply.response)
        #expect(response.status == 201)
        let links = response.headers.filter { $0.name == "link" }.map(\.value)
        #expect(links == [
            #"<turn:127.0.0.1:3478?transport=udp>; rel="ice-server"; username="1700086400:s1"; credential="R8/d1n+QfM93Kuaap8qWIhGpLV4="; credential-type="password""#,
            #"<turn:127.0.0.1:3478?transport=tcp>; rel="ice-server"; username="1700086400:s1"; credential="R8/d1n+QfM93Kuaap8qWIhGpLV4="; credential-type="password""#,
            #"<turns:turn.example.com:443>; rel="ice-server"; username="1700003600:s1"; credential="H1fTITVkaXCBUcqU9X03H8jUmLo="; credential-type="password""#,
        ])
    }

    @Test func linkValuesAreQuotedStrings() {
        #expect(ICEServerLinks.quoted(#"a"b\c"#) == #""a\"b\\c""#)
        #expect(ICEServerLinks.quoted("line\r\nbreak") == #""linebreak""#)
        #expect(ICEServerLinks.headers(nil).isEmpty)
        #expect(ICEServerLinks.headers([["urls": "turn:h"]]).map(\.value) == [#"<turn:h>; rel="ice-server""#])
    }
}
