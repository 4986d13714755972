import Foundation
import SluiceCluster
import SluiceJSON
import SluiceJSONParser
import SluiceServer
import SluiceSignaling
import XCTest

/// A whole in-process Server with `cluster.redis` set, against a real redis-server: it
/// registers itself, `GET /api/v1/cluster` lists it from the cache, shutdown removes it.
final class ServerClusterTests: XCTestCase {
    static let token = "cluster-admin-token"

    private func server(cluster: ClusterConfig?) throws -> Server {
        var lastError: Error?
        for _ in 0..<20 {
            var config = ServerConfig()
            config.httpPort = Int.random(in: 20000...60000)
            config.rtcPort = Int.random(in: 20000...60000)
            config.rtcWorkers = 1
            config.adminToken = Self.token
            config.logLevel = "error"
            config.cluster = cluster
            do {
                let server = try Server(config: config)
                try server.start()
                return server
            } catch {
                lastError = error  // a port in use: try others
            }
        }
        throw lastError ?? XCTSkip("could not start a server")
    }

    private func cluster(_ server: Server) throws -> JSONValue {
        let response = server.signaling.router.route(HTTPRequest(method: "GET", path: "/api/v1/cluster",
                                                                 headers: ["authorization": "Bearer \(Self.token)"]))
        XCTAssertEqual(response.status, 200)
        return try JSONValue.parse(response.body)
    }

    func testANodeRegistersListsItselfAndLeavesOnShutdown() throws {
        let redis = try RedisServerFixture.start()
        let server = try server(cluster: ClusterConfig(redis: redis.url, nodeId: "node-a", relayAddress: "127.0.0.1:10000"))
        var stopped = false
        defer { if !stopped { server.shutdown() } }
        let registry = ClusterRegistry(connection: redis.connection())
        XCTAssertTrue(waitUntil(5) { (try? registry.node("node-a")) != nil }, "registered in Redis")
        let record = try XCTUnwrap(try registry.node("node-a"))
        XCTAssertEqual(record.relayAddress, "127.0.0.1:10000")
        XCTAssertEqual(record.signalingURL, "ws://127.0.0.1:\(server.config.httpPort)/ws")
        XCTAssertEqual(record.workers, 1)

        // Another node's stream shows in the listing (the cache catches up within a heartbeat).
        XCTAssertEqual(try registry.claim(StreamRecord(name: "cam", app: "defaultApp", node: "node-b"), ttlMs: 10_000), .claimed)
        XCTAssertTrue(waitUntil(5) { (try? self.cluster(server)["streams"]?[0]?["node"]) == "node-b" })
        let body = try cluster(server)
        XCTAssertEqual(body["enabled"], true)
        XCTAssertEqual(body["nodeId"], "node-a")
        XCTAssertEqual(body["redisReachable"], true)
        XCTAssertEqual(body["nodes"]?[0]?["nodeId"], "node-a")
        XCTAssertEqual(body["streams"]?.arrayValue?.count, 1)

        // Redis gone: the endpoint still answers at once, from the cache, marked unreachable.
        redis.kill()
        XCTAssertTrue(waitUntil(5) { (try? self.cluster(server)["redisReachable"]) == false })
        XCTAssertEqual(try cluster(server)["nodes"]?[0]?["nodeId"], "node-a")
        try redis.restart()
        XCTAssertTrue(waitUntil(5) { (try? registry.node("node-a")) != nil }, "registered again")

        server.shutdown()
        stopped = true
        XCTAssertNil(try registry.node("node-a"), "a clean shutdown deletes the node's key")
    }

    func testWithoutAClusterTheEndpointSaysSoAndNeedsTheToken() throws {
        let server = try server(cluster: nil)
        defer { server.shutdown() }
        XCTAssertNil(server.cluster)
        XCTAssertEqual(try cluster(server), ["enabled": false])
        let refused = server.signaling.router.route(HTTPRequest(method: "GET", path: "/api/v1/cluster"))
        XCTAssertEqual(refused.status, 401)
        let post = server.signaling.router.route(HTTPRequest(method: "POST", path: "/api/v1/cluster",
                                                             headers: ["authorization": "Bearer \(Self.token)"]))
        XCTAssertEqual(post.status, 405)
    }

    /// The server's StreamNameRegistry (ClusterStreamNames over ClusterMember) against Redis:
    /// another node's name is in use, a claim is ours in Redis until released, and while Redis
    /// is known to be away a claim is unavailable at once, until Redis answers again.
    func testTheServersNameRegistryClaimsInRedis() throws {
        let redis = try RedisServerFixture.start()
        let server = try server(cluster: ClusterConfig(redis: redis.url, nodeId: "node-a", relayAddress: "127.0.0.1:10000"))
        defer { server.shutdown() }
        let names = try XCTUnwrap(server.signaling.sessions.nameRegistry, "a cluster node has a name registry")
        let registry = ClusterRegistry(connection: redis.connection())
        XCTAssertEqual(try registry.claim(StreamRecord(name: "taken", app: "defaultApp", node: "node-b"), ttlMs: 10_000), .claimed)

        XCTAssertEqual(names.claim(stream: "taken", app: "defaultApp"), .inUse(byNode: "node-b"))
        XCTAssertEqual(names.claim(stream: "mine", app: "defaultApp"), .claimed)
        XCTAssertEqual(try registry.stream("mine"), StreamRecord(name: "mine", app: "defaultApp", node: "node-a"))
        names.release(stream: "mine")
        XCTAssertNil(try registry.stream("mine"), "released at once, not left to the TTL")
        names.release(stream: "taken")
        XCTAssertEqual(try registry.stream("taken")?.node, "node-b", "another node's claim is not ours to release")

        redis.kill()
        XCTAssertTrue(waitUntil(5) { server.cluster?.redisKnownUnreachable == true })
        guard case .unavailable(let why) = names.claim(stream: "new", app: "defaultApp") else {
            return XCTFail("a claim while Redis is away must be unavailable")
        }
        XCTAssertTrue(why.contains("unreachable"), "answered from what the node knows, without asking: \(why)")
        try redis.restart()
        XCTAssertTrue(waitUntil(5) { server.cluster?.redisKnownUnreachable == false })
        XCTAssertEqual(names.claim(stream: "new", app: "defaultApp"), .claimed)
        XCTAssertEqual(try ClusterRegistry(connection: redis.connection()).stream("new")?.node, "node-a")
    }
}
