import Foundation
import SluiceCluster
import Synchronization
import XCTest

/// The registry against a real redis-server (RedisServerFixture).
final class ClusterRegistryTests: XCTestCase {
    private func node(_ id: String) -> NodeRecord {
        NodeRecord(nodeId: id, relayAddress: "127.0.0.1:7000", signalingURL: "ws://127.0.0.1:8080/ws",
                   workers: 2, sessions: 3, streams: 1, players: 2, updatedAtMs: 1_700_000_000_000)
    }

    func testNodeRecordExpiresWithItsTTLUnlessHeartbeated() throws {
        let redis = try RedisServerFixture.start()
        let registry = ClusterRegistry(connection: redis.connection())
        try registry.register(node("a"), ttlMs: 300)
        try registry.register(node("b"), ttlMs: 300)
        XCTAssertEqual(try registry.nodes().nodes, [node("a"), node("b")])
        let ttl = try redis.connection().command(["PTTL", ClusterKeys.node("a")]).integer ?? -1
        XCTAssertTrue((1...300).contains(ttl), "PTTL \(ttl)")
        // Control: "b" keeps heartbeating and stays; "a" stops and drops out by its TTL alone.
        let gone = waitUntil(5) {
            try? registry.register(node("b"), ttlMs: 300)
            return (try? registry.nodes().nodes.map(\.nodeId)) == ["b"]
        }
        XCTAssertTrue(gone, "a should have expired and b stayed: \(String(describing: try? registry.nodes().nodes.map(\.nodeId)))")
        XCTAssertNil(try registry.node("a"))
        XCTAssertEqual(try registry.node("b"), node("b"))
        try registry.deregister(nodeId: "b")
        XCTAssertEqual(try registry.nodes().nodes, [])
    }

    func testOneOfManyRacingNodesClaimsANameAndTheOthersSeeTheWinner() throws {
        let redis = try RedisServerFixture.start()
        let racers = 8
        let registries = (0..<racers).map { _ in ClusterRegistry(connection: redis.connection()) }
        for registry in registries { try registry.connection.connect() }
        let results = Mutex<[Int: StreamClaim]>([:])
        let failures = Mutex<[String]>([])
        let ready = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for i in 0..<racers {
            ready.enter()
            done.enter()
            // Not Sendable (one connection): this thread has it alone until `done`, after which
            // only the test reads it again.
            nonisolated(unsafe) let registry = registries[i]
            Thread {
                ready.leave()
                go.wait()
                do {
                    let claim = try registry.claim(StreamRecord(name: "live", app: "defaultApp", node: "node\(i)", layers: ["q", "h", "f"]),
                                                   ttlMs: 10_000)
                    results.withLock { $0[i] = claim }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
                done.leave()
            }.start()
        }
        ready.wait()
        for _ in 0..<racers { go.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(failures.withLock { $0 }, [])
        let all = results.withLock { $0 }
        let winners = all.filter { $0.value == .claimed }.map(\.key)
        XCTAssertEqual(winners.count, 1, "exactly one claim wins: \(all)")
        guard let winner = winners.first else { return }
        for (i, claim) in all where i != winner {
            XCTAssertEqual(claim, .inUse(by: "node\(winner)"), "node\(i)")
        }
        let stored = try ClusterRegistry(connection: redis.connection()).stream("live")
        XCTAssertEqual(stored, StreamRecord(name: "live", app: "defaultApp", node: "node\(winner)", layers: ["q", "h", "f"]))
        XCTAssertEqual(try registries[winner].origin(ofStream: "live"), nil, "no node record registered yet")
        // The winner claiming again keeps it; a loser still cannot take it.
        XCTAssertEqual(try registries[winner].claim(StreamRecord(name: "live", app: "defaultApp", node: "node\(winner)"), ttlMs: 10_000), .claimed)
        let loser = (winner + 1) % racers
        XCTAssertEqual(try registries[loser].claim(StreamRecord(name: "live", app: "defaultApp", node: "node\(loser)"), ttlMs: 10_000),
                       .inUse(by: "node\(winner)"))
    }

    func testOnlyTheOwnerReleasesOrRefreshesAClaim() throws {
        let redis = try RedisServerFixture.start()
        let a = ClusterRegistry(connection: redis.connection())
        let b = ClusterRegistry(connection: redis.connection())
        let mine = StreamRecord(name: "cam", app: "app", node: "A", layers: [])
        XCTAssertEqual(try a.claim(mine, ttlMs: 5000), .claimed)
        try a.register(node("A"), ttlMs: 5000)
        XCTAssertEqual(try b.origin(ofStream: "cam")?.nodeId, "A")

        XCTAssertFalse(try b.release(stream: "cam", nodeId: "B"))
        XCTAssertEqual(try b.stream("cam"), mine, "a non-owner's release leaves the claim")
        XCTAssertEqual(try b.refresh(StreamRecord(name: "cam", app: "app", node: "B"), ttlMs: 5000), .lost(to: "A"))
        XCTAssertEqual(try b.stream("cam"), mine, "a non-owner's refresh does not overwrite")
        XCTAssertEqual(try a.refresh(mine, ttlMs: 5000), .refreshed)

        // Control: the owner's release does delete it, and then another node can claim.
        XCTAssertTrue(try a.release(stream: "cam", nodeId: "A"))
        XCTAssertNil(try b.stream("cam"))
        XCTAssertFalse(try a.release(stream: "cam", nodeId: "A"))
        XCTAssertEqual(try b.claim(StreamRecord(name: "cam", app: "app", node: "B"), ttlMs: 5000), .claimed)
        XCTAssertEqual(try a.refresh(mine, ttlMs: 5000), .lost(to: "B"))
        XCTAssertEqual(try a.claim(mine, ttlMs: 5000), .inUse(by: "B"))
        XCTAssertEqual(try b.streams().streams.map(\.node), ["B"])
    }

    func testJunkUnderTheKeysIsSkippedNotFatal() throws {
        let redis = try RedisServerFixture.start()
        let raw = redis.connection()
        try raw.command(bytes: [Array("SET".utf8), Array(ClusterKeys.node("junk").utf8), [0xff, 0x00, 0x7b]])
        try raw.command(["SET", ClusterKeys.stream("junk"), "{\"name\":1}"])
        try raw.command(["HSET", ClusterKeys.stream("hash"), "f", "v"])
        let registry = ClusterRegistry(connection: redis.connection())
        try registry.register(node("ok"), ttlMs: 5000)
        let listed = try registry.nodes()
        XCTAssertEqual(listed.nodes.map(\.nodeId), ["ok"])
        XCTAssertEqual(listed.junk, 1)
        XCTAssertEqual(try registry.streams().junk, 1, "a hash under the prefix is not returned by MGET; the bad JSON is junk")
        XCTAssertThrowsError(try registry.claim(StreamRecord(name: "junk", app: "a", node: "ok"), ttlMs: 1000)) { error in
            XCTAssertEqual((error as? RedisError)?.isConnectionLoss, false)
        }
        XCTAssertFalse(try registry.release(stream: "junk", nodeId: "ok"), "junk is never ours")
        // A wrong-type key gives an error reply, not a broken connection.
        XCTAssertThrowsError(try registry.claim(StreamRecord(name: "hash", app: "a", node: "ok"), ttlMs: 1000))
        XCTAssertEqual(try registry.connection.command(["PING"]), .status("PONG"))
        // Binary-safe arguments: a NUL inside a value survives the round trip.
        try raw.command(bytes: [Array("SET".utf8), Array("bin".utf8), [1, 0, 2]])
        XCTAssertEqual(try raw.command(["GET", "bin"]), .string([1, 0, 2]))
    }

    func testAConnectionToNothingFailsCleanlyAndRecovers() throws {
        let redis = try RedisServerFixture.start()
        let connection = RedisConnection(url: redis.url, connectTimeoutMs: 300, commandTimeoutMs: 300)
        XCTAssertEqual(try connection.command(["PING"]), .status("PONG"))
        redis.kill()
        XCTAssertThrowsError(try connection.command(["PING"])) { error in
            XCTAssertEqual((error as? RedisError)?.isConnectionLoss, true, "\(error)")
        }
        XCTAssertFalse(connection.isConnected)
        try redis.restart()
        XCTAssertEqual(try connection.command(["PING"]), .status("PONG"), "the next command connects again")
    }
}
