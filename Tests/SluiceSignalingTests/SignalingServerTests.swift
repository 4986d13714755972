import Dispatch
import Foundation
import SluiceControl
import SluiceJSON
import SluiceJSONParser
import SluiceMedia
@testable import SluiceSignaling
import SluiceVocabulary
import Testing

@Suite(.serialized) struct SignalingServerTests {
    func makeServer(_ configure: (inout SignalingConfig) -> Void = { _ in }) throws -> SignalingServer {
        var config = SignalingConfig(host: "127.0.0.1", port: 0, apps: [.init(key: "demo")], serverVersion: "1.2.3")
        config.logLevel = .error
        configure(&config)
        let router = HTTPRouter()
        router.add("POST", "/echo") { request in
            .json(["length": JSONValue(request.body.count), "query": .string(request.query),
                   "type": .string(request.header("Content-Type") ?? "")], status: 201,
                  headers: [("location", "/echo/1")])
        }
        let server = SignalingServer(config: config, media: FakeMediaControl(), router: router)
        try server.start()
        return server
    }

    @Test func healthNotFoundAndBodies() throws {
        let server = try makeServer { $0.maxHTTPBodyBytes = 200_000 }
        defer { server.shutdown() }
        #expect(server.port > 0)

        let connection = try TestConnection(port: server.port)
        try connection.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let health = try connection.readHTTPResponse()
        #expect(health.status == 200)
        #expect(health.headers["content-type"] == "application/json")
        let body = try JSONValue.parse(health.body)
        #expect(body["status"] == "ok")
        #expect(body["version"] == "1.2.3")
        #expect(body["sessions"] == 0)
        #expect(body["uptimeSeconds"]?.intValue != nil)

        // Same connection (keep-alive): unknown path.
        try connection.write("GET /nope HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let missing = try connection.readHTTPResponse()
        #expect(missing.status == 404)
        #expect(try JSONValue.parse(missing.body) == ["error": ["code": 404, "message": "Not found", "reason": "NOT_FOUND"]])

        // POST with a body and a query.
        let payload = String(repeating: "b", count: 100_000)
        try connection.write("POST /echo?x=1&y=2 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/sdp\r\n"
                             + "Content-Length: \(payload.utf8.count)\r\n\r\n" + payload)
        let echo = try connection.readHTTPResponse()
        #expect(echo.status == 201)
        #expect(echo.headers["location"] == "/echo/1")
        #expect(try JSONValue.parse(echo.body) == ["length": 100_000, "query": "x=1&y=2", "type": "application/sdp"])

        // Method without a route on a known path.
        try connection.write("DELETE /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try connection.readHTTPResponse().status == 405)

        // A body over the limit is read, dropped and refused; the connection stays usable.
        let tooLarge = String(repeating: "c", count: 300_000)
        try connection.write("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(tooLarge.utf8.count)\r\n\r\n" + tooLarge)
        #expect(try connection.readHTTPResponse().status == 413)
        try connection.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try connection.readHTTPResponse().status == 200)
    }

    @Test func webSocketSessionSurvivesAnOversizedFrame() throws {
        let server = try makeServer()
        let client = try TestConnection(port: server.port)
        #expect(try client.upgrade() == 101)

        try client.sendText(#"{"jsonrpc":"2.0","id":1,"method":"connect","params":{"appKey":"demo"}}"#)
        let connected = try JSONValue.parse(try client.readText())
        #expect(connected["id"] == 1)
        #expect(connected["result"]?["serverVersion"] == "1.2.3")
        #expect(try JSONValue.parse(try client.readText())["params"]?["status"] == "ESTABLISHED")

        // 2 MiB in one frame: answered with -32600 and id null.
        var huge = Array(#"{"jsonrpc":"2.0","id":2,"method":"ping","pad":""#.utf8)
        huge.append(contentsOf: [UInt8](repeating: UInt8(ascii: "x"), count: 2 * 1_048_576))
        huge.append(contentsOf: Array(#""}"#.utf8))
        try client.sendFrame(opcode: 0x1, payload: huge)
        let oversize = try JSONValue.parse(try client.readText())
        #expect(oversize["id"] == .null)
        #expect(oversize["error"]?["code"] == -32600)

        // Still usable, also for a message in two fragments.
        try client.sendText(#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#)
        #expect(try JSONValue.parse(try client.readText()) == ["jsonrpc": "2.0", "id": 3, "result": [:]])
        try client.sendFrame(opcode: 0x1, payload: Array(#"{"jsonrpc":"2.0","#.utf8), fin: false)
        try client.sendFrame(opcode: 0x0, payload: Array(#""id":4,"method":"ping"}"#.utf8), fin: true)
        #expect(try JSONValue.parse(try client.readText())["id"] == 4)

        // Bad JSON does not close either.
        try client.sendText("{nope")
        #expect(try JSONValue.parse(try client.readText())["error"]?["code"] == -32700)

        // /health counts the session.
        let probe = try TestConnection(port: server.port)
        try probe.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try JSONValue.parse(try probe.readHTTPResponse().body)["sessions"] == 1)

        // Shutdown from another thread: DISCONNECTED, then a close frame with 1001.
        let stopped = DispatchSemaphore(value: 0)
        Thread { server.shutdown(); stopped.signal() }.start()
        #expect(try JSONValue.parse(try client.readText())["params"]?["status"] == "DISCONNECTED")
        let close = try client.readFrame()
        #expect(close.opcode == 0x8)
        #expect(close.payload.count >= 2 && (Int(close.payload[0]) << 8 | Int(close.payload[1])) == 1001)
        try client.sendFrame(opcode: 0x8, payload: Array(close.payload.prefix(2)))
        #expect(stopped.wait(timeout: .now() + 10) == .success)
    }

    @Test func upgradeOnlyOnWsPathAndAnySubprotocolPolicy() throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let wrongPath = try TestConnection(port: server.port)
        _ = try? wrongPath.upgrade(path: "/health")
        #expect(wrongPath.readsEOF())

        let named = try TestConnection(port: server.port)
        #expect(try named.upgrade(subprotocol: "sluice") == 101)

        let disconnecting = try TestConnection(port: server.port)
        #expect(try disconnecting.upgrade() == 101)
        try disconnecting.sendText(#"{"jsonrpc":"2.0","id":1,"method":"connect","params":{"appKey":"wrong"}}"#)
        #expect(try JSONValue.parse(try disconnecting.readText())["error"]?["code"] == 1001)
        let close = try disconnecting.readFrame()
        #expect(close.opcode == 0x8)
        #expect(close.payload.count >= 2 && (Int(close.payload[0]) << 8 | Int(close.payload[1])) == 4001)
    }

    @Test func bindFailureIsReported() throws {
        let first = try makeServer()
        defer { first.shutdown() }
        var config = SignalingConfig(host: "127.0.0.1", port: first.port, apps: [])
        config.logLevel = .error
        let second = SignalingServer(config: config, media: FakeMediaControl())
        #expect(throws: SignalingServerError.bindFailed(host: "127.0.0.1", port: first.port)) {
            try second.start()
        }
    }
}
