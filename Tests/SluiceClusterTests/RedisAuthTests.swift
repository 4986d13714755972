import Foundation
import SluiceCluster
import SluiceServer
import XCTest

/// `cluster.redis` with a password, against a real redis-server with `requirepass` (and an ACL
/// user): nodes with it form the cluster, every reconnect authenticates again, and a node
/// without it (or with a wrong one) does not start, with an error that never holds the password.
final class RedisAuthTests: XCTestCase {
    static let password = "correct-horse-battery-staple"

    func testAConnectionAuthenticatesAndTheProbeTellsARefusal() throws {
        let redis = try RedisServerFixture.start(password: Self.password)
        XCTAssertEqual(try redis.connection().command(["PING"]), .status("PONG"))
        XCTAssertNil(RedisConnection.probe(redis.url))

        var none = redis.url
        none.password = nil
        guard case .authentication(let noAuth)? = RedisConnection.probe(none) else {
            return XCTFail("a Redis that wants a password refuses a node without one")
        }
        XCTAssertTrue(noAuth.hasPrefix("NOAUTH"), noAuth)

        var wrong = redis.url
        wrong.password = "not-the-password"
        let refusal = RedisConnection.probe(wrong)
        guard case .authentication(let why)? = refusal else { return XCTFail("\(String(describing: refusal))") }
        XCTAssertTrue(why.contains("WRONGPASS") || why.contains("invalid"), why)
        XCTAssertFalse("\(refusal!)".contains("not-the-password"))
    }

    func testAnACLUserAuthenticatesWithItsName() throws {
        let redis = try RedisServerFixture.start(password: Self.password)
        let admin = redis.connection()
        XCTAssertEqual(try admin.command(["ACL", "SETUSER", "sluice", "on", ">node-pass", "~sluice:*", "+@all"]), .status("OK"))
        let url = try RedisURL(parsing: "redis://sluice:node-pass@127.0.0.1:\(redis.port)/0")
        let connection = RedisConnection(url: url)
        XCTAssertEqual(try connection.command(["SET", "sluice:x", "1"]), .status("OK"))
        // The ACL keeps the user to Sluice's keys: it authenticated as sluice, not as default.
        if case .error(let message) = try connection.command(["SET", "other:x", "1"]) {
            XCTAssertTrue(message.contains("NOPERM"), message)
        } else {
            XCTFail("the ACL user wrote outside sluice:*")
        }
    }

    func testAMemberWithThePasswordRegistersAndAuthenticatesAgainAfterARestart() throws {
        let redis = try RedisServerFixture.start(password: Self.password)
        let member = ClusterMember(settings: ClusterMember.Settings(url: redis.url), nodeId: "node-auth",
                                   relayAddress: "127.0.0.1:10000", signalingURL: "ws://127.0.0.1:8080/ws")
        member.start()
        defer { member.stop() }
        let registry = ClusterRegistry(connection: redis.connection())
        XCTAssertTrue(waitUntil(5) { (try? registry.node("node-auth")) != nil }, "registered through AUTH")
        try redis.restart()
        XCTAssertTrue(waitUntil(5) { (try? registry.node("node-auth")) != nil }, "registered again: the reconnect sent AUTH")
        // The heartbeat that registered again ends by marking Redis reachable for claims.
        XCTAssertTrue(waitUntil(5) { !member.redisKnownUnreachable })
        XCTAssertEqual(try member.claim(stream: "cam", app: "defaultApp"), .claimed)
    }

    func testAServerWithoutThePasswordRefusesToStartAndNeverShowsIt() throws {
        let redis = try RedisServerFixture.start(password: Self.password)
        for given in [nil, "a-wrong-password"] {
            var url = redis.url
            url.password = given
            var config = ServerConfig()
            config.httpPort = 0
            config.rtcPort = 0
            config.rtcWorkers = 1
            config.logLevel = "error"
            config.cluster = ClusterConfig(redis: url, nodeId: "node-x", relayAddress: "127.0.0.1:10000")
            XCTAssertThrowsError(try Server(config: config)) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("cluster.redis") && text.contains("refused"), text)
                XCTAssertTrue(text.contains(given == nil ? "NOAUTH" : "WRONGPASS"), text)
                XCTAssertFalse(text.contains(Self.password) || text.contains("a-wrong-password"), text)
            }
        }
    }
}
