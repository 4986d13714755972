import SluiceJSON
import SluiceJSONParser
import SluiceSignaling
import Testing

@Suite struct HTTPRouterTests {
    func router() -> HTTPRouter {
        let router = HTTPRouter()
        router.add("GET", "/api/v1/streams") { _ in HTTPResponse(status: 200, body: Array("list".utf8)) }
        router.add("DELETE", "/api/v1/streams") { request in HTTPResponse(status: 204, body: Array(request.path.utf8)) }
        router.add(nil, "/whip") { request in HTTPResponse(status: 201, body: Array(request.method.utf8)) }
        router.add("GET", "/") { _ in HTTPResponse(status: 200, body: Array("root".utf8)) }
        return router
    }

    @Test func longestPrefixWinsOnSegmentBoundaries() {
        let router = router()
        #expect(router.route(HTTPRequest(method: "GET", path: "/api/v1/streams")).body == Array("list".utf8))
        #expect(router.route(HTTPRequest(method: "GET", path: "/api/v1/streams/cam")).body == Array("list".utf8))
        #expect(router.route(HTTPRequest(method: "GET", path: "/api/v1/streamsX")).body == Array("root".utf8))
        #expect(router.route(HTTPRequest(method: "DELETE", path: "/api/v1/streams/cam")).status == 204)
        #expect(router.route(HTTPRequest(method: "PATCH", path: "/whip/cam/1")).body == Array("PATCH".utf8))
        #expect(router.route(HTTPRequest(method: "HEAD", path: "/api/v1/streams")).status == 200)
    }

    @Test func wrongMethodIs405AndNoRouteIs404() throws {
        let router = HTTPRouter()
        router.add("GET", "/health") { _ in .json(["status": "ok"]) }
        let refused = router.route(HTTPRequest(method: "POST", path: "/health"))
        #expect(refused.status == 405)
        #expect(refused.headers.first { $0.name == "allow" }?.value == "GET")
        let missing = router.route(HTTPRequest(method: "GET", path: "/nope"))
        #expect(missing.status == 404)
        #expect(missing.contentType == "application/json")
        #expect(try JSONValue.parse(missing.body) == ["error": ["code": 404, "message": "Not found", "reason": "NOT_FOUND"]])
    }

    @Test func queryItemsAndHeaders() {
        let request = HTTPRequest(method: "POST", path: "/whep/cam", query: "quality=low&width=640&flag",
                                  headers: ["content-type": "application/sdp"])
        #expect(request.queryItems.map(\.name) == ["quality", "width", "flag"])
        #expect(request.queryItems.map(\.value) == ["low", "640", ""])
        #expect(request.header("Content-Type") == "application/sdp")
    }

    @Test func deferredRoutesAnswerThroughTheResponder() {
        let router = HTTPRouter()
        var kept: HTTPResponder?
        router.addDeferred("POST", "/later") { _, responder in kept = responder }
        router.addDeferred("POST", "/now") { _, responder in responder.respond(HTTPResponse(status: 201)) }
        #expect(router.route(HTTPRequest(method: "POST", path: "/now")).status == 201)
        #expect(router.route(HTTPRequest(method: "GET", path: "/later")).status == 405)

        let responder = HTTPResponder()
        router.route(HTTPRequest(method: "POST", path: "/later"), responder: responder)
        #expect(kept === responder)
        #expect(!responder.isAnswered)
        #expect(responder.respond(HTTPResponse(status: 202)))
        #expect(responder.isAnswered)
        #expect(!responder.respond(HTTPResponse(status: 500)))  // one answer per request
    }

    @Test func mediaTypeAndBearerToken() {
        let request = HTTPRequest(method: "POST", path: "/whip/cam",
                                  headers: ["content-type": " Application/SDP ; charset=utf-8",
                                            "authorization": "bearer  key1 "])
        #expect(request.mediaType == "application/sdp")
        #expect(request.bearerToken == "key1")
        #expect(HTTPRequest(method: "GET", path: "/").mediaType == nil)
        #expect(HTTPRequest(method: "GET", path: "/").bearerToken == nil)
    }
}
