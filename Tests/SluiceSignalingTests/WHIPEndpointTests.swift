import SluiceControl
import SluiceJSON
import SluiceJSONParser
import SluiceMedia
@testable import SluiceSignaling
import SluiceVocabulary
import Testing
import SluiceLog

/// A WHIP endpoint on the hook harness's session manager (apps "demo" and "hooked", a fake
/// engine and a fake hook transport); `runSoon` work runs when the test says.
final class WHIPHarness {
    let hooks = HookHarness()
    let endpoint: WHIPEndpoint
    private var soon: [() -> Void] = []

    var media: FakeMediaControl { hooks.media }
    var manager: SessionManager { hooks.manager }

    init() {
        var queue: (@escaping () -> Void) -> Void = { _ in }
        let endpoint = WHIPEndpoint(sessions: hooks.manager, log: Log(level: .error), runSoon: { queue($0) })
        self.endpoint = endpoint
        queue = { [unowned self] task in soon.append(task) }
    }

    /// Runs what the service thread would at its next wake.
    func runSoon() {
        let tasks = soon
        soon.removeAll()
        tasks.forEach { $0() }
    }

    static let offer = Array("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n".utf8)

    func request(_ method: String, _ path: String, query: String = "", appKey: String? = "demo",
                 type: String? = "application/sdp", body: [UInt8] = WHIPHarness.offer) -> HTTPRequest {
        var headers: [String: String] = [:]
        if let appKey { headers["authorization"] = "Bearer \(appKey)" }
        if let type { headers["content-type"] = type }
        return HTTPRequest(method: method, path: path, query: query, headers: headers, body: body)
    }

    /// The request's reply, answered or not.
    @discardableResult
    func send(_ request: HTTPRequest) -> WHIPReply {
        let reply = WHIPReply()
        endpoint.handle(request, responder: reply.responder)
        reply.responder.handlerReturned { [unowned reply] response in reply.deferred = response }
        return reply
    }

    func answer(_ request: HTTPRequest) -> HTTPResponse? {
        send(request).response
    }
}

/// What a request got: an answer at once, or one given later.
final class WHIPReply {
    let responder = HTTPResponder()
    var deferred: HTTPResponse?
    var response: HTTPResponse? { responder.immediate ?? deferred }
}

extension HTTPResponse {
    func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    var errorReason: String? { (try? JSONValue.parse(body))?["error"]?["reason"]?.stringValue }
}

@Suite(.serialized) struct WHIPEndpointTests {
    @Test func publishIsASessionUntilDelete() throws {
        let h = WHIPHarness()
        let created = try #require(h.answer(h.request("POST", "/whip/cam")))
        #expect(created.status == 201)
        #expect(created.contentType == "application/sdp")
        #expect(String(decoding: created.body, as: UTF8.self).hasPrefix("v=0\r\nanswer-for-h1"))
        #expect(created.header("access-control-allow-origin") == "*")
        #expect(created.header("access-control-expose-headers") == "Location, Link, ETag")
        let location = try #require(created.header("location"))
        let id = String(try #require(location.split(separator: "/").last))
        #expect(location == "/whip/cam/\(id)")
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))

        // A session of its own, listed like any other, with the publish handle.
        #expect(h.manager.connectedSessionCount == 1)
        let session = try #require(h.manager.connectedSessions.first)
        #expect(session.appKey == "demo")
        let sessionID = try #require(session.sessionID)
        #expect(session.handleRoles == ["h1": .publish])
        #expect(h.media.publishRequests.first?.stream == "cam")
        #expect(h.endpoint.resourceCount == 1)

        // The same name again: 409, and the refused resource leaves nothing behind.
        h.media.publishError = .streamNameInUse
        let inUse = try #require(h.answer(h.request("POST", "/whip/cam")))
        #expect(inUse.status == 409)
        #expect(inUse.errorReason == "STREAM_NAME_IN_USE")
        h.runSoon()
        #expect(h.manager.openSessionCount == 1)
        #expect(h.endpoint.resourceCount == 1)

        // PATCH with trickle candidates: 204; another type 415; another app's key 404.
        #expect(h.answer(h.request("PATCH", location, type: "application/trickle-ice-sdpfrag"))?.status == 204)
        #expect(h.answer(h.request("PATCH", location, type: "application/sdp"))?.status == 415)
        #expect(h.answer(h.request("PATCH", location, appKey: "hooked", type: "application/trickle-ice-sdpfrag"))?.status == 404)
        #expect(h.answer(h.request("DELETE", location, appKey: "hooked"))?.status == 404)
        #expect(h.answer(h.request("DELETE", location, appKey: nil))?.status == 401)
        #expect(h.answer(h.request("DELETE", "/whep/cam/\(id)"))?.status == 404)

        // DELETE ends the handle and the session, at once.
        #expect(h.answer(h.request("DELETE", location))?.status == 200)
        #expect(h.media.endedSessions.last == sessionID)
        #expect(h.manager.openSessionCount == 0)
        #expect(h.endpoint.resourceCount == 0)
        #expect(h.answer(h.request("DELETE", location))?.status == 404)
    }

    @Test func refusalsComeInOrder() throws {
        let h = WHIPHarness()
        func status(_ request: HTTPRequest) -> Int? { h.answer(request)?.status }
        #expect(status(h.request("POST", "/whip")) == 404)
        #expect(status(h.request("POST", "/whip/cam/1/2")) == 404)
        #expect(status(h.request("GET", "/whip/cam")) == 405)
        #expect(h.answer(h.request("POST", "/whip/cam/abc"))?.header("allow") == "DELETE, PATCH, OPTIONS")
        #expect(status(h.request("POST", "/whip/cam", appKey: nil, type: "text/plain")) == 401)
        #expect(status(h.request("POST", "/whip/cam", appKey: "nope")) == 401)
        #expect(status(h.request("POST", "/whip/bad%20name", type: "text/plain")) == 400)
        let wrongType = try #require(h.answer(h.request("POST", "/whip/cam", type: "application/json")))
        #expect(wrongType.status == 415)
        #expect(wrongType.header("accept-post") == "application/sdp")
        #expect(status(h.request("POST", "/whip/cam", type: nil)) == 415)
        #expect(status(h.request("POST", "/whip/cam", type: "Application/SDP; charset=utf-8")) == 201)
        #expect(status(h.request("POST", "/whip/cam2", body: [])) == 400)
        #expect(status(h.request("POST", "/whep/cam", query: "width=wide")) == 400)
        h.media.publishError = .badSDP("line 2: \"x\"")
        let bad = try #require(h.answer(h.request("POST", "/whip/other")))
        #expect(bad.status == 400)
        #expect(bad.errorReason == "BAD_SDP")
        h.media.publishError = .noCommonCodecs
        #expect(status(h.request("POST", "/whip/other")) == 422)
        h.media.publishError = .limitReached("maxStreams")
        #expect(status(h.request("POST", "/whip/other")) == 503)
        h.runSoon()
        // Only the one good publish is left.
        #expect(h.manager.openSessionCount == 1)
        #expect(h.endpoint.resourceCount == 1)
    }

    @Test func preflightAnswersCORS() throws {
        let h = WHIPHarness()
        let endpoint = try #require(h.answer(h.request("OPTIONS", "/whep/cam", appKey: nil, type: nil, body: [])))
        #expect(endpoint.status == 204)
        #expect(endpoint.header("accept-post") == "application/sdp")
        #expect(endpoint.header("access-control-allow-origin") == "*")
        #expect(endpoint.header("access-control-allow-methods") == "POST, OPTIONS")
        #expect(endpoint.header("access-control-allow-headers") == "Authorization, Content-Type, If-Match")
        #expect(endpoint.header("access-control-expose-headers") == "Location, Link, ETag")
        let resource = try #require(h.answer(h.request("OPTIONS", "/whep/cam/ab", appKey: nil, type: nil, body: [])))
        #expect(resource.header("access-control-allow-methods") == "DELETE, PATCH, OPTIONS")
        #expect(resource.header("accept-patch") == "application/trickle-ice-sdpfrag")
    }

    @Test func whepPlaysWithQueryConstraintsAndEndsWithItsHandle() throws {
        let h = WHIPHarness()
        h.media.playError = .streamNotFound
        let notLive = try #require(h.answer(h.request("POST", "/whep/cam")))
        #expect(notLive.status == 409)
        #expect(notLive.header("retry-after") == "1")
        h.media.playError = nil

        let created = try #require(h.answer(h.request("POST", "/whep/cam", query: "quality=low&width=640&x=1")))
        #expect(created.status == 201)
        #expect(created.header("location")?.hasPrefix("/whep/cam/") == true)
        let play = try #require(h.media.playRequests.last)
        #expect(play.constraints.video?.quality == .low)
        #expect(play.constraints.video?.width == 640)
        #expect(play.wait == false)
        h.runSoon()
        #expect(h.manager.openSessionCount == 1)

        // The publisher goes away: the play handle ends, and with it the resource.
        let session = try #require(h.manager.connectedSessions.first?.sessionID)
        h.media.events.append(.streamStatus(session: session, handle: "h1", stream: "cam", role: .play,
                                            status: .unpublished, info: StatusInfo.publisherStop, ends: true))
        h.manager.drainMediaEvents()
        #expect(h.endpoint.resourceCount == 1)  // not inside the delivery
        h.runSoon()
        #expect(h.endpoint.resourceCount == 0)
        #expect(h.manager.openSessionCount == 0)
    }

    @Test func hooksAuthorizeBeforeTheAnswer() throws {
        let h = WHIPHarness()
        let reply = h.send(h.request("POST", "/whip/cam", appKey: "hooked"))
        #expect(reply.response == nil)
        h.hooks.answer(.connect, .status(200))
        #expect(reply.response == nil)
        let publishHook = try #require(h.hooks.transport.bodies(.publishStream).first)
        #expect(publishHook["stream"] == "cam")
        #expect(publishHook["role"] == "publish")
        h.hooks.answer(.publishStream, .status(200))
        #expect(reply.deferred?.status == 201)
        #expect(h.hooks.transport.bodies(.streamStatus).first?["status"] == "PENDING")

        // A refused play: 403, and the session is gone with its `disconnect` hook.
        let refused = h.send(h.request("POST", "/whep/cam", appKey: "hooked"))
        h.hooks.answer(.connect, .status(200))
        h.hooks.answer(.playStream, .status(403))
        #expect(refused.deferred?.status == 403)
        #expect(refused.deferred?.errorReason == "RESTRICTED_ACCESS")
        h.runSoon()
        #expect(h.endpoint.resourceCount == 1)
        #expect(h.manager.openSessionCount == 1)
        h.hooks.transport.settleNotifications()
        #expect(h.hooks.transport.bodies(.disconnect).count == 1)

        // A client that leaves while its hook runs: nothing is made.
        let leaving = h.send(h.request("POST", "/whip/cam2", appKey: "hooked"))
        leaving.responder.abandon()
        h.runSoon()
        h.hooks.answer(.connect, .status(200))
        #expect(h.media.publishRequests.count == 1)
        #expect(h.endpoint.resourceCount == 1)
        #expect(h.manager.openSessionCount == 1)
    }

    @Test func aFailedPublisherEndsItsResource() throws {
        let h = WHIPHarness()
        #expect(h.answer(h.request("POST", "/whip/cam"))?.status == 201)
        let session = try #require(h.manager.connectedSessions.first?.sessionID)
        h.media.events.append(.streamStatus(session: session, handle: "h1", stream: "cam", role: .publish,
                                            status: .failed, info: StatusInfo.iceTimeout, ends: true))
        h.manager.drainMediaEvents()
        h.runSoon()
        #expect(h.endpoint.resourceCount == 0)
        #expect(h.manager.openSessionCount == 0)
        // The name is free again.
        #expect(h.answer(h.request("POST", "/whip/cam"))?.status == 201)
    }

    @Test func kickedSessionEndsItsResource() throws {
        let h = WHIPHarness()
        #expect(h.answer(h.request("POST", "/whip/cam"))?.status == 201)
        let session = try #require(h.manager.connectedSessions.first?.sessionID)
        #expect(h.manager.kick(session))
        h.runSoon()
        #expect(h.endpoint.resourceCount == 0)
        #expect(h.manager.openSessionCount == 0)
    }
}
