import Foundation
import SluiceJSON
import SluiceJSONParser
@testable import SluiceSignaling
import Testing

/// The drain as the signaling server runs it, over real sockets: `/health` 503, a session's
/// `serverDraining`, 1017 for new connects, publishes and plays, and `isDrained` once the last
/// session ends (or at once with none).
@Suite(.serialized) struct DrainTests {
    func makeServer() throws -> SignalingServer {
        var config = SignalingConfig(host: "127.0.0.1", port: 0, apps: [.init(key: "demo")], serverVersion: "1.2.3")
        config.logLevel = .error
        let server = SignalingServer(config: config, media: FakeMediaControl())
        try server.start()
        return server
    }

    func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }

    /// A WebSocket session that connected, its reply and ESTABLISHED read.
    func connectedClient(_ server: SignalingServer) throws -> TestConnection {
        let client = try TestConnection(port: server.port)
        #expect(try client.upgrade() == 101)
        try client.sendText(#"{"jsonrpc":"2.0","id":1,"method":"connect","params":{"appKey":"demo"}}"#)
        #expect(try JSONValue.parse(try client.readText())["id"] == 1)
        #expect(try JSONValue.parse(try client.readText())["params"]?["status"] == "ESTABLISHED")
        return client
    }

    @Test func runningSessionsGoOnNewOnesAreRefusedAndTheLastOneEndsIt() throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let client = try connectedClient(server)

        #expect(server.drain(seconds: 30, servers: ["ws://127.0.0.2:8080/ws"]))
        #expect(!server.drain(seconds: 30), "a second drain finds the first")
        let notice = try JSONValue.parse(try client.readText())
        #expect(notice["method"] == "serverDraining")
        let left = try #require(notice["params"]?["deadlineMs"]?.intValue)
        #expect(left > 25_000 && left <= 30_000)
        #expect(notice["params"]?["servers"] == ["ws://127.0.0.2:8080/ws"])

        // The running session still answers; what it would start is refused.
        try client.sendText(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#)
        #expect(try JSONValue.parse(try client.readText())["id"] == 2)
        try client.sendText(#"{"jsonrpc":"2.0","id":3,"method":"play","params":{"name":"cam","sdp":"v=0"}}"#)
        let play = try JSONValue.parse(try client.readText())
        #expect(play["error"]?["code"] == 1017)
        #expect(play["error"]?["data"]?["reason"] == "SERVER_DRAINING")

        let health = try TestConnection(port: server.port)
        try health.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let answer = try health.readHTTPResponse()
        #expect(answer.status == 503)
        #expect(try JSONValue.parse(answer.body)["status"] == "draining")

        let late = try TestConnection(port: server.port)
        #expect(try late.upgrade() == 101)
        try late.sendText(#"{"jsonrpc":"2.0","id":1,"method":"connect","params":{"appKey":"demo"}}"#)
        #expect(try JSONValue.parse(try late.readText())["error"]?["code"] == 1017)

        #expect(!server.isDrained)
        try client.sendText(#"{"jsonrpc":"2.0","id":4,"method":"disconnect"}"#)
        #expect(eventually { server.isDrained })
    }

    @Test func withNoSessionTheDrainEndsAtOnce() throws {
        let server = try makeServer()
        defer { server.shutdown() }
        #expect(!server.isDraining)
        server.drain(seconds: 30)
        #expect(server.isDraining)
        #expect(eventually { server.isDrained })
    }

    @Test func theDeadlineEndsADrainThatSessionsOutlast() throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let client = try connectedClient(server)
        server.drain(seconds: 0)
        #expect(eventually { server.isDrained })
        withExtendedLifetime(client) {
            #expect(server.sessions.connectedSessionCount == 1, "the shutdown after the drain closes what is left")
        }
    }
}
