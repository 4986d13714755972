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

    @Test func streamViewsShowPublisherPlayersAndMuteState() throws {
        let fixture = try AdminFixture()
        let (publisherSession, publisherOutput, publisherID) = try fixture.connect()
        let publisher = try fixture.call("publish", stream: "cam1", session: publisherSession, output: publisherOutput, id: 2)
        let (playerSession, playerOutput, playerID) = try fixture.connect()
        let player = try fixture.call("play", stream: "cam1", session: playerSession, output: playerOutput, id: 2)

        // A handle's figures appear when its worker publishes them (a tick, once a second).
        // Compare the two views only after that, so both show the same snapshot: with no media
        // flowing, later ticks publish the same figures.
        let published = { (view: JSONValue) in view["publisher"]?["video"] != nil && view["players"]?[0]?["video"] != nil }
        var waited = 0
        while waited < 100, !published(try json(fixture.request("GET", "/api/v1/streams/cam1"))) {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 1
        }
        let list = try json(fixture.request("GET", "/api/v1/streams"))
        let streams = try #require(list["streams"]?.arrayValue)
        #expect(streams.count == 1)
        let one = try json(fixture.request("GET", "/api/v1/streams/cam1"))
        #expect(published(one), "no figures published within 5 s: \(one)")
        #expect(streams.first == one)
        #expect(one["name"] == "cam1")
        #expect(one["appKey"] == "demo")
        #expect(one["publisher"]?["handle"] == .string(publisher))
        #expect(one["publisher"]?["session"] == .string(publisherID))
        #expect(one["publisher"]?["role"] == "publish")
        #expect(one["publisher"]?["stream"] == "cam1")
        let players = try #require(one["players"]?.arrayValue)
        #expect(players.count == 1)
        #expect(players.first?["handle"] == .string(player))
        #expect(players.first?["session"] == .string(playerID))
        #expect(players.first?["role"] == "play")
        let unmuted: JSONValue = ["muted": false, "byPublisher": false, "byServer": false]
        #expect(one["muted"] == ["audio": unmuted, "video": unmuted])
    }

    @Test func kindStatsUseTheSection3Names() {
        var video = KindStats()
        video.packets = 10
        video.bytes = 12_000
        video.bitrateKbps = 800.5
        video.width = 640
        video.height = 480
        video.keyFrames = 2
        video.layer = 1
        video.codec = "VP8"
        let json = MediaJSON.kindStats(video, video: true)
        let keys = Set(json.objectValue?.keys ?? [])
        #expect(keys == ["packets", "bytes", "bitrate", "packetsLost", "fractionLost", "jitterMs", "rttMs", "nacks",
                         "plis", "firs", "fps", "width", "height", "layer", "keyFrames", "layers", "codec"])
        #expect(json["bitrate"] == 800.5)
        #expect(json["bytes"] == 12_000)
        let audio = MediaJSON.kindStats(KindStats(), video: false)
        #expect(audio["width"] == nil)
        #expect(audio["keyFrames"] == nil)
        #expect(audio["codec"] == nil)
        #expect(audio["packets"] == 0)
    }

    @Test func serverMuteTellsEveryoneAndOutranksThePublisher() throws {
        let fixture = try AdminFixture()
        let (publisherSession, publisherOutput, _) = try fixture.connect()
        let publisher = try fixture.call("publish", stream: "cam2", session: publisherSession, output: publisherOutput, id: 2)
        let (playerSession, playerOutput, _) = try fixture.connect()
        _ = try fixture.call("play", stream: "cam2", session: playerSession, output: playerOutput, id: 2)

        let muted = fixture.request("POST", "/api/v1/streams/cam2/mute", contentType: "application/json; charset=utf-8",
                                    body: #"{"kind":"video"}"#)
        #expect(muted.status == 200)
        #expect(try json(muted) == [:])
        fixture.sessions.drainMediaEvents()
        for output in [publisherOutput, playerOutput] {
            let events = output.notifications("streamEvent")
            #expect(events.count == 1)
            #expect(events.last?["params"]?["type"] == "videoMuted")
            #expect(events.last?["params"]?["by"] == "server")
        }
        let view = try json(fixture.request("GET", "/api/v1/streams/cam2"))
        #expect(view["muted"]?["video"] == ["muted": true, "byPublisher": false, "byServer": true])
        #expect(view["muted"]?["audio"]?["muted"] == false)

        // The publisher cannot lift it.
        let refused = fixture.rpc("unmute", ["handle": .string(publisher), "kind": "video"],
                                  session: publisherSession, output: publisherOutput, id: 3)
        #expect(refused?["error"]?["code"] == 1002)

        // The same mute again changes nothing and tells no one.
        #expect(fixture.request("POST", "/api/v1/streams/cam2/mute", body: #"{"kind":"video"}"#).status == 200)
        fixture.sessions.drainMediaEvents()
        #expect(playerOutput.notifications("streamEvent").count == 1)

        #expect(fixture.request("POST", "/api/v1/streams/cam2/unmute", contentType: "application/json",
                                body: #"{"kind":"video"}"#).status == 200)
        fixture.sessions.drainMediaEvents()
        for output in [publisherOutput, playerOutput] {
            #expect(output.notifications("streamEvent").last?["params"]?["type"] == "videoUnmuted")
            #expect(output.notifications("streamEvent").last?["params"]?["by"] == "server")
        }
        #expect(try json(fixture.request("GET", "/api/v1/streams/cam2"))["muted"]?["video"]?["muted"] == false)
    }

    @Test func muteRequestsAreValidated() throws {
        let fixture = try AdminFixture()
        let (session, output, _) = try fixture.connect()
        _ = try fixture.call("publish", stream: "cam3", session: session, output: output, id: 2)
        let path = "/api/v1/streams/cam3/mute"

        let wrongType = fixture.request("POST", path, contentType: "text/plain", body: #"{"kind":"video"}"#)
        #expect(wrongType.status == 415)
        #expect(try json(wrongType)["error"]?["reason"] == "UNSUPPORTED_MEDIA_TYPE")

        let cases: [(String, String)] = [
            ("", "JSON object"),
            ("{", "not valid JSON"),
            (#"["video"]"#, "an array"),
            ("{}", "'kind' is required"),
            (#"{"kind":"data"}"#, "'kind' must be"),
            (#"{"kind":1}"#, "'kind' must be"),
            (#"{"kind":"VIDEO"}"#, "'kind' must be"),
        ]
        for (body, words) in cases {
            let response = fixture.request("POST", path, contentType: "application/json", body: body)
            #expect(response.status == 400, "body \(body)")
            let error = try json(response)["error"]
            #expect(error?["reason"] == "BAD_REQUEST")
            #expect(error?["message"]?.stringValue?.contains(words) == true, "body \(body): \(String(describing: error))")
        }
        // A valid body for an unknown stream; a body is checked before the stream.
        #expect(fixture.request("POST", "/api/v1/streams/other/mute", body: #"{"kind":"audio"}"#).status == 404)
        #expect(fixture.request("POST", "/api/v1/streams/other/mute", body: "{}").status == 400)
        // No Content-Type at all is accepted.
        #expect(fixture.request("POST", path, body: #"{"kind":"audio","extra":true}"#).status == 200)
    }

    @Test func deleteStreamTerminatesThePublisher() throws {
        let fixture = try AdminFixture()
        let (publisherSession, publisherOutput, _) = try fixture.connect()
        let publisher = try fixture.call("publish", stream: "cam4", session: publisherSession, output: publisherOutput, id: 2)
        let (playerSession, playerOutput, _) = try fixture.connect()
        let player = try fixture.call("play", stream: "cam4", session: playerSession, output: playerOutput, id: 2)

        let deleted = fixture.request("DELETE", "/api/v1/streams/cam4")
        #expect(deleted.status == 200)
        #expect(try json(deleted) == [:])
        fixture.sessions.drainMediaEvents()
        let publisherEnd = publisherOutput.notifications("streamStatus").last?["params"]
        #expect(publisherEnd?["handle"] == .string(publisher))
        #expect(publisherEnd?["status"] == "UNPUBLISHED")
        #expect(publisherEnd?["info"] == "Stopped by rest /terminate")
        let playerEnd = playerOutput.notifications("streamStatus").last?["params"]
        #expect(playerEnd?["handle"] == .string(player))
        #expect(playerEnd?["status"] == "UNPUBLISHED")
        #expect(playerEnd?["info"] == "Stopped by publisher stop")

        #expect(fixture.request("GET", "/api/v1/streams/cam4").status == 404)
        #expect(fixture.request("DELETE", "/api/v1/streams/cam4").status == 404)
        #expect(try json(fixture.request("GET", "/api/v1/streams")) == ["streams": []])
    }

    @Test func sessionsAreListedAndKicked() throws {
        let fixture = try AdminFixture(appKeys: ["demo", "other"])
        let (publisherSession, publisherOutput, publisherID) = try fixture.connect()
        let publisher = try fixture.call("publish", stream: "cam5", session: publisherSession, output: publisherOutput, id: 2)
        let (_, _, otherID) = try fixture.connect(appKey: "other")

        let list = try json(fixture.request("GET", "/api/v1/sessions"))
        let sessions = try #require(list["sessions"]?.arrayValue)
        #expect(sessions.count == 2)
        #expect(sessions.first == ["id": .string(publisherID), "appKey": "demo",
                                   "handles": [["handle": .string(publisher), "role": "publish", "stream": "cam5"]]])
        #expect(sessions.last == ["id": .string(otherID), "appKey": "other", "handles": []])

        #expect(fixture.request("DELETE", "/api/v1/sessions/\(publisherID)").status == 200)
        #expect(publisherOutput.closes == [1000])
        let ended = publisherOutput.notifications("streamStatus").last?["params"]
        #expect(ended?["status"] == "UNPUBLISHED")
        #expect(ended?["info"] == "Stopped by session disconnect")
        #expect(publisherOutput.notifications("session").last?["params"]?["status"] == "DISCONNECTED")

        let after = try json(fixture.request("GET", "/api/v1/sessions"))
        #expect(after["sessions"]?.arrayValue?.map { $0["id"] } == [.string(otherID)])
        #expect(fixture.request("DELETE", "/api/v1/sessions/\(publisherID)").status == 404)
        #expect(fixture.request("GET", "/api/v1/streams/cam5").status == 404)
    }
}
