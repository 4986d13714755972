import SluiceControl
import SluiceJSON
import SluiceMedia
@testable import SluiceSignaling
import SluiceVocabulary
import Testing

/// Deferred answers and WHIP over real HTTP, through libwebsockets, on 127.0.0.1.
@Suite(.serialized) struct WHIPServerTests {
    final class ServerBox {
        weak var server: SignalingServer?
    }

    @Test func deferredAnswersAndWHIPOverHTTP() throws {
        var config = SignalingConfig(host: "127.0.0.1", port: 0, apps: [.init(key: "demo")])
        config.logLevel = .error
        let router = HTTPRouter()
        let box = ServerBox()
        let big = [UInt8](repeating: UInt8(ascii: "z"), count: 40_000)
        router.addDeferred("POST", "/later") { _, responder in
            box.server?.runSoon { responder.respond(HTTPResponse(status: 202, contentType: "text/plain", body: big)) }
        }
        let server = SignalingServer(config: config, media: FakeMediaControl(), router: router)
        box.server = server
        WHIPEndpoint(signaling: server).register(on: router)
        try server.start()
        defer { server.shutdown() }

        // An answer given after the handler returned, body in several chunks; then keep-alive.
        let connection = try TestConnection(port: server.port)
        try connection.write("POST /later HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi")
        let later = try connection.readHTTPResponse()
        #expect(later.status == 202)
        #expect(later.body == big)
        try connection.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try connection.readHTTPResponse().status == 200)

        // WHIP: 201 with the Location, then DELETE on the same connection.
        let offer = "v=0\r\ns=-\r\n"
        try connection.write("POST /whip/cam HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer demo\r\n"
                             + "Content-Type: application/sdp\r\nContent-Length: \(offer.utf8.count)\r\n\r\n\(offer)")
        let created = try connection.readHTTPResponse()
        #expect(created.status == 201)
        #expect(created.headers["content-type"] == "application/sdp")
        #expect(created.headers["access-control-allow-origin"] == "*")
        let location = try #require(created.headers["location"])
        #expect(location.hasPrefix("/whip/cam/"))
        try connection.write("OPTIONS /whip/cam HTTP/1.1\r\nHost: x\r\n\r\n")
        let preflight = try connection.readHTTPResponse()
        #expect(preflight.status == 204)
        #expect(preflight.headers["accept-post"] == "application/sdp")
        try connection.write("PATCH \(location) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer demo\r\n"
                             + "Content-Type: application/trickle-ice-sdpfrag\r\nContent-Length: 13\r\n\r\na=ice-ufrag:x")
        #expect(try connection.readHTTPResponse().status == 204)
        try connection.write("DELETE \(location) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer demo\r\n\r\n")
        #expect(try connection.readHTTPResponse().status == 200)
        try connection.write("DELETE \(location) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer demo\r\n\r\n")
        #expect(try connection.readHTTPResponse().status == 404)
    }
}
