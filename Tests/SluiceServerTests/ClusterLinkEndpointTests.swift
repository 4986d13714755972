import SluiceCluster
import SluiceJSON
import SluiceJSONParser
import SluiceSignaling
import Testing
@testable import SluiceServer

/// `POST /api/v1/cluster/links` and `DELETE /api/v1/cluster/links/{link}` on a built (not
/// started) server: the cluster secret, then the body, then the engine.
final class ClusterLinkEndpointTests {
    static let secret = "0123456789abcdef-cluster"
    let server: Server

    init() throws {
        server = try Self.server(secret: Self.secret)
    }

    deinit { server.shutdown() }

    static func server(secret: String?, cluster: Bool = true) throws -> Server {
        var lastError: Error?
        for _ in 0..<20 {
            var config = ServerConfig()
            config.httpPort = Int.random(in: 20000...60000)
            config.rtcPort = Int.random(in: 20000...60000)
            config.rtcWorkers = 1
            config.adminToken = "admin-token"
            config.logLevel = "error"
            if cluster {
                // Never started: no heartbeat, so no Redis is needed.
                config.cluster = ClusterConfig(redis: RedisURL(host: "127.0.0.1", port: 1), nodeId: "node-a",
                                               relayAddress: "127.0.0.1:10000", secret: secret)
            }
            do {
                return try Server(config: config)
            } catch {
                lastError = error
            }
        }
        throw lastError ?? ConfigError(key: "", problem: "no server")
    }

    func post(_ body: String, token: String? = ClusterLinkEndpointTests.secret, contentType: String? = "application/json",
              on server: Server? = nil) -> HTTPResponse {
        var headers: [String: String] = [:]
        if let token { headers["authorization"] = "Bearer \(token)" }
        if let contentType { headers["content-type"] = contentType }
        return (server ?? self.server).signaling.router.route(
            HTTPRequest(method: "POST", path: ClusterLinkEndpoint.path, headers: headers, body: Array(body.utf8)))
    }

    func reason(_ response: HTTPResponse) -> String? {
        (try? JSONValue.parse(response.body))?["error"]?["reason"]?.stringValue
    }

    var goodBody: String { LinkJSON.json(LinkJSONTests.request).serialized() }

    @Test func theSecretIsRequiredAndChecked() {
        let missing = post(goodBody, token: nil)
        #expect(missing.status == 401)
        #expect(reason(missing) == "UNAUTHORIZED")
        #expect(missing.headers.contains { $0.name == "www-authenticate" && $0.value.contains("sluice-cluster") })
        let wrong = post(goodBody, token: Self.secret + "x")
        #expect(wrong.status == 401)
        #expect(wrong.headers.contains { $0.value.contains("invalid_token") })
        #expect(post(goodBody, token: String(Self.secret.dropLast())).status == 401)
        // The admin token is not the cluster secret.
        #expect(post(goodBody, token: "admin-token").status == 401)
        // Control: with the secret the request gets past the check (to the engine, which has no such stream).
        #expect(post(goodBody).status == 404)
    }

    @Test func aNodeWithoutASecretServesNoLinks() throws {
        for server in [try Self.server(secret: nil), try Self.server(secret: nil, cluster: false)] {
            defer { server.shutdown() }
            let response = post(goodBody, on: server)
            #expect(response.status == 403)
            #expect(reason(response) == "CLUSTER_LINKS_DISABLED")
        }
    }

    @Test func aStreamNotPublishedHereIs404() throws {
        let response = post(goodBody)
        #expect(response.status == 404)
        #expect(reason(response) == "STREAM_NOT_FOUND")
        #expect(try JSONValue.parse(response.body)["error"]?["message"]?.stringValue?.contains("cam-1") == true)
    }

    @Test func badBodiesAre400NamingTheField() throws {
        var request = LinkJSONTests.request
        request.iceUfrag = "x"
        let response = post(LinkJSON.json(request).serialized())
        #expect(response.status == 400)
        #expect(reason(response) == "BAD_REQUEST")
        #expect(try JSONValue.parse(response.body)["error"]?["message"]?.stringValue?.contains("'iceUfrag'") == true)
        #expect(post("{").status == 400)
        #expect(post("").status == 400)
        // A request from a node with this node's id: a misconfigured cluster, said so.
        request = LinkJSONTests.request
        request.edgeNode = "node-a"
        let own = post(LinkJSON.json(request).serialized())
        #expect(own.status == 400)
        #expect(try JSONValue.parse(own.body)["error"]?["message"]?.stringValue?.contains("'edgeNode' is this node") == true)
        #expect(post(goodBody, contentType: "text/plain").status == 415)
        #expect(post(goodBody, contentType: "application/json; charset=utf-8").status == 404)
    }

    @Test func deleteClosesAndOtherMethodsAre405() {
        let headers = ["authorization": "Bearer \(Self.secret)"]
        let router = server.signaling.router
        let deleted = router.route(HTTPRequest(method: "DELETE", path: ClusterLinkEndpoint.path + "/Lk7", headers: headers))
        #expect(deleted.status == 200)
        #expect(deleted.body == Array("{}".utf8))
        #expect(router.route(HTTPRequest(method: "DELETE", path: ClusterLinkEndpoint.path + "/Lk7")).status == 401)
        #expect(router.route(HTTPRequest(method: "GET", path: ClusterLinkEndpoint.path, headers: headers)).status == 405)
        #expect(router.route(HTTPRequest(method: "POST", path: ClusterLinkEndpoint.path + "/Lk7", headers: headers)).status == 405)
        #expect(router.route(HTTPRequest(method: "DELETE", path: ClusterLinkEndpoint.path + "/a/b", headers: headers)).status == 404)
        // The cluster view keeps its own route and token.
        #expect(router.route(HTTPRequest(method: "GET", path: AdminCluster.path,
                                         headers: ["authorization": "Bearer admin-token"])).status == 200)
    }

    @Test func theMetricsCountLinks() {
        let response = server.signaling.router.route(HTTPRequest(method: "GET", path: "/metrics"))
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.contains("sluice_cluster_links{role=\"origin\"} 0"))
        #expect(text.contains("sluice_cluster_links{role=\"edge\"} 0"))
        #expect(text.contains("# TYPE sluice_cluster_links_by_edge gauge"))
    }
}

/// The secret's check on its own: constant-time, whole-token, off without a secret.
struct ClusterAuthorizationTests {
    @Test func acceptsOnlyTheWholeSecret() {
        let check = ClusterAuthorization(secret: "0123456789abcdef")
        func status(_ header: String?) -> Int? {
            check.refusal(for: HTTPRequest(method: "POST", path: "/", headers: header.map { ["authorization": $0] } ?? [:]))?.status
        }
        #expect(status("Bearer 0123456789abcdef") == nil)
        #expect(status("bearer  0123456789abcdef ") == nil)
        #expect(status("Bearer 0123456789abcdeF") == 401)
        #expect(status("Bearer 0123456789abcde") == 401)
        #expect(status("Bearer 0123456789abcdef0123456789abcdef") == 401)
        #expect(status("Basic 0123456789abcdef") == 401)
        #expect(status(nil) == 401)
        #expect(ClusterAuthorization(secret: nil).refusal(for: HTTPRequest(method: "POST", path: "/"))?.status == 403)
        #expect(ClusterAuthorization(secret: "").isEnabled == false)
    }
}
