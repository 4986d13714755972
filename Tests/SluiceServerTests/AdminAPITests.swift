import Foundation
import SluiceControl
import SluiceJSON
import SluiceJSONParser
import SluiceMedia
import SluiceSignaling
import SluiceVocabulary
import Testing
@testable import SluiceServer

/// Records what a session sends, in order.
final class AdminRecordingOutput: SessionOutput {
    private(set) var texts: [String] = []
    private(set) var closes: [UInt16] = []

    func send(text: String) { texts.append(text) }
    func close(code: UInt16, reason: String) { closes.append(code) }

    var messages: [JSONValue] { texts.compactMap { try? JSONValue.parse($0) } }

    func notifications(_ method: String) -> [JSONValue] {
        messages.filter { $0["method"]?.stringValue == method }
    }

    func reply(id: Int) -> JSONValue? {
        messages.last { $0["id"] == JSONValue(id) }
    }
}

/// A `Server` that is built but not started: its route handlers and sessions are driven
/// from the test's thread, which then plays the part of the service thread.
final class AdminFixture {
    static let token = "s3cret-admin"
    let server: Server
    var router: HTTPRouter { server.signaling.router }
    var sessions: SessionManager { server.signaling.sessions }

    init(token: String = AdminFixture.token, appKeys: [String] = ["demo"], start: Bool = false,
         configure: (inout ServerConfig) -> Void = { _ in }) throws {
        var lastError: Error?
        for _ in 0..<20 {
            var config = ServerConfig()
            config.httpPort = Int.random(in: 20000...60000)
            config.rtcPort = Int.random(in: 20000...60000)
            config.rtcWorkers = 1
            config.adminToken = token
            config.logLevel = "error"
            config.apps = appKeys.map { ServerConfig.App(key: $0, hooksURL: nil, hooksSecret: nil, hooksTimeoutMs: 5000) }
            configure(&config)
            do {
                let server = try Server(config: config)
                if start {
                    do {
                        try server.start()
                    } catch {
                        server.shutdown()
                        throw error
                    }
                }
                self.server = server
                return
            } catch {
                lastError = error  // a port in use: try others
            }
        }
        throw lastError ?? AdminTestError("could not start a server")
    }

    deinit { server.shutdown() }

    func request(_ method: String, _ path: String, token: String? = AdminFixture.token,
                 contentType: String? = nil, body: String = "") -> HTTPResponse {
        var headers: [String: String] = [:]
        if let token { headers["authorization"] = "Bearer \(token)" }
        if let contentType { headers["content-type"] = contentType }
        // "/path?query" as a request line gives it: the parser splits the two.
        let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let responder = HTTPResponder()
        router.route(HTTPRequest(method: method, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : "",
                                 headers: headers, body: Array(body.utf8)), responder: responder)
        // A route that answers from another thread (the call log on PostgreSQL) answers on the
        // service thread's next wake, which this thread plays.
        pump { responder.isAnswered }
        return responder.immediate ?? .error(status: 500, message: "No answer", reason: "INTERNAL_ERROR")
    }

    /// Plays the service thread's wakes until `done` (or 10 s, a bound for a broken run).
    func pump(until done: () -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        while !done() && Date() < deadline {
            sessions.callTick()
            usleep(1000)
        }
    }

    /// A connected session.
    func connect(appKey: String = "demo") throws -> (RPCSession, AdminRecordingOutput, SessionID) {
        let output = AdminRecordingOutput()
        let session = sessions.open(output: output)
        let message: JSONValue = ["jsonrpc": "2.0", "id": 1, "method": "connect", "params": ["appKey": .string(appKey)]]
        sessions.receive(message.serialized(), from: session)
        let id = try #require(output.reply(id: 1)?["result"]?["sessionId"]?.stringValue)
        return (session, output, id)
    }

    /// Sends publish or play with a recorded aiortc offer; returns the handle.
    func call(_ method: String, stream: String, session: RPCSession, output: AdminRecordingOutput, id: Int) throws -> String {
        let offer = try AdminFixture.offer(method == "publish" ? "aiortc-publish.sdp" : "aiortc-play.sdp")
        let message: JSONValue = ["jsonrpc": "2.0", "id": JSONValue(id), "method": .string(method),
                                  "params": ["stream": .string(stream), "sdp": .string(offer)]]
        sessions.receive(message.serialized(), from: session)
        let reply = output.reply(id: id)
        return try #require(reply?["result"]?["handle"]?.stringValue, "\(method) failed: \(String(describing: reply))")
    }

    func rpc(_ method: String, _ params: JSONValue, session: RPCSession, output: AdminRecordingOutput, id: Int) -> JSONValue? {
        let message: JSONValue = ["jsonrpc": "2.0", "id": JSONValue(id), "method": .string(method), "params": params]
        sessions.receive(message.serialized(), from: session)
        pump { output.reply(id: id) != nil }
        return output.reply(id: id)
    }

    static func offer(_ name: String) throws -> String {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: tests.appendingPathComponent("SluiceSDPTests/Offers/\(name)"), encoding: .utf8)
    }
}

struct AdminTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func json(_ response: HTTPResponse) throws -> JSONValue {
    try JSONValue.parse(response.body)
}

func header(_ response: HTTPResponse, _ name: String) -> String? {
    response.headers.first { $0.name.lowercased() == name }?.value
}

@Suite(.serialized) struct AdminAPITests {
    @Test func adminCallsNeedTheBearerToken() throws {
        let fixture = try AdminFixture()
        for path in ["/api/v1/streams", "/api/v1/sessions", "/api/v1/streams/cam/mute"] {
            let missing = fixture.request("GET", path, token: nil)
            #expect(missing.status == 401)
            #expect(header(missing, "www-authenticate")?.hasPrefix("Bearer") == true)
            let body = try json(missing)
            #expect(body["error"]?["code"] == 401)
            #expect(body["error"]?["reason"] == "UNAUTHORIZED")
            #expect(body["error"]?["message"]?.stringValue?.isEmpty == false)

            let wrong = fixture.request("GET", path, token: "s3cret-admiN")
            #expect(wrong.status == 401)
            #expect(header(wrong, "www-authenticate")?.hasPrefix("Bearer") == true)
            #expect(fixture.request("GET", path, token: "s3cret-admin-and-more").status == 401)
            #expect(fixture.request("GET", path, token: "").status == 401)
        }
        #expect(fixture.request("GET", "/api/v1/streams").status == 200)
        // The scheme is case-insensitive; other schemes are refused.
        let lower = fixture.router.route(HTTPRequest(method: "GET", path: "/api/v1/sessions",
                                                     headers: ["authorization": "bearer  \(AdminFixture.token) "]))
        #expect(lower.status == 200)
        let basic = fixture.router.route(HTTPRequest(method: "GET", path: "/api/v1/sessions",
                                                     headers: ["authorization": "Basic \(AdminFixture.token)"]))
        #expect(basic.status == 401)
        // Auth comes before routing: an unknown stream is not revealed.
        #expect(fixture.request("DELETE", "/api/v1/streams/nope", token: nil).status == 401)
    }

    @Test func emptyTokenDisablesTheAdminAPIButNotMetrics() throws {
        let fixture = try AdminFixture(token: "")
        for (method, path) in [("GET", "/api/v1/streams"), ("GET", "/api/v1/sessions"), ("DELETE", "/api/v1/streams/x")] {
            for token: String? in [nil, "", "anything"] {
                let response = fixture.request(method, path, token: token)
                #expect(response.status == 403)
                #expect(try json(response)["error"]?["reason"] == "ADMIN_API_DISABLED")
            }
        }
        #expect(fixture.request("GET", "/metrics", token: nil).status == 200)
        #expect(fixture.request("GET", "/api/v1/openapi.json", token: nil).status == 200)
    }

    @Test func constantTimeCompareAndBearerParsing() {
        #expect(AdminAuthorization.constantTimeEquals(Array("abc".utf8), Array("abc".utf8)))
        #expect(!AdminAuthorization.constantTimeEquals(Array("abd".utf8), Array("abc".utf8)))
        #expect(!AdminAuthorization.constantTimeEquals(Array("abcabc".utf8), Array("abc".utf8)))
        #expect(!AdminAuthorization.constantTimeEquals([], Array("abc".utf8)))
        #expect(!AdminAuthorization.constantTimeEquals([], []))
        #expect(AdminAuthorization.bearerToken("Bearer tok") == "tok")
        #expect(AdminAuthorization.bearerToken("BEARER\ttok\t") == "tok")
        #expect(AdminAuthorization.bearerToken("Bearer") == nil)
        #expect(AdminAuthorization.bearerToken("Bearer   ") == nil)
        #expect(AdminAuthorization.bearerToken("Bearertok") == nil)
        #expect(AdminAuthorization.bearerToken(nil) == nil)
    }

    @Test func routingAnswers404And405() throws {
        let fixture = try AdminFixture()
        let post = fixture.request("POST", "/api/v1/streams")
        #expect(post.status == 405)
        #expect(header(post, "allow") == "GET")
        #expect(header(fixture.request("PUT", "/api/v1/streams/cam"), "allow") == "DELETE, GET")
        #expect(header(fixture.request("GET", "/api/v1/streams/cam/mute"), "allow") == "POST")
        #expect(header(fixture.request("GET", "/api/v1/sessions/abc"), "allow") == "DELETE")
        #expect(fixture.request("DELETE", "/api/v1/sessions").status == 405)
        for path in ["/api/v1/streams/cam/pause", "/api/v1/streams/a/b/c", "/api/v1/sessions/a/b", "/api/v1/nothing"] {
            let response = fixture.request("GET", path)
            #expect(response.status == 404, "\(path)")
            #expect(try json(response)["error"]?["code"] == 404)
        }
        let unknown = fixture.request("GET", "/api/v1/streams/nobody")
        #expect(unknown.status == 404)
        #expect(try json(unknown)["error"]?["reason"] == "STREAM_NOT_FOUND")
        #expect(fixture.request("DELETE", "/api/v1/streams/nobody").status == 404)
        let noSession = fixture.request("DELETE", "/api/v1/sessions/0123")
        #expect(noSession.status == 404)
        #expect(try json(noSession)["error"]?["reason"] == "SESSION_NOT_FOUND")
        // HEAD is GET without a body (the exchange drops it); a trailing slash is the same path.
        #expect(fixture.request("HEAD", "/api/v1/streams").status == 200)
        #expect(try json(fixture.request("GET", "/api/v1/streams/")) == ["streams": []])
    }
}
