import Foundation
import SluiceCluster
import Synchronization
import XCTest

/// ClusterMember against a real redis-server that is killed and started again.
final class ClusterMemberTests: XCTestCase {
    private final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var log: ClusterLog {
            ClusterLog(info: { [self] line in lines.withLock { $0.append(line) } },
                       warn: { [self] line in lines.withLock { $0.append(line) } })
        }
        func count(_ fragment: String) -> Int { lines.withLock { $0.filter { $0.contains(fragment) }.count } }
    }

    private func member(_ redis: RedisServerFixture, lines: Lines) -> ClusterMember {
        var settings = ClusterMember.Settings(url: redis.url)
        settings.heartbeatMs = 100
        settings.ttlMs = 1000
        settings.connectTimeoutMs = 200
        settings.commandTimeoutMs = 200
        return ClusterMember(settings: settings, nodeId: "edge-1", relayAddress: "127.0.0.1:7001",
                             signalingURL: "ws://127.0.0.1:8081/ws", figures: .init(workers: 2), log: lines.log)
    }

    private func keys(_ redis: RedisServerFixture) -> [String] {
        let reply = try? redis.connection().command(["KEYS", "*"])
        return (reply?.elements ?? []).compactMap(\.text).sorted()
    }

    func testSurvivesRedisDyingAndRegistersAgainWhenItReturns() throws {
        let redis = try RedisServerFixture.start()
        let lines = Lines()
        let member = member(redis, lines: lines)
        member.start()
        defer { member.stop() }
        XCTAssertTrue(waitUntil(5) { member.snapshot.nodes.map(\.nodeId) == ["edge-1"] }, "\(member.snapshot)")
        XCTAssertEqual(try member.claim(stream: "cam", app: "defaultApp", layers: ["q", "f"]), .claimed)
        XCTAssertTrue(waitUntil(5) { member.snapshot.streams.map(\.name) == ["cam"] })
        XCTAssertEqual(keys(redis), [ClusterKeys.node("edge-1"), ClusterKeys.stream("cam")])
        XCTAssertEqual(member.snapshot.nodes.first?.workers, 2)

        redis.kill()
        XCTAssertTrue(waitUntil(5) { !member.snapshot.redisReachable }, "the loss shows in the snapshot")
        XCTAssertEqual(member.snapshot.streams.map(\.name), ["cam"], "the last lists stay readable")
        XCTAssertThrowsError(try member.claim(stream: "other", app: "defaultApp")) { error in
            XCTAssertEqual((error as? RedisError)?.isConnectionLoss, true, "\(error)")
        }
        // Several failing heartbeats, one log line.
        usleep(500_000)
        XCTAssertEqual(lines.count("lost Redis"), 1)

        try redis.restart()
        // The new server started empty (no persistence): these keys can only come from the member.
        XCTAssertTrue(waitUntil(5) { self.keys(redis) == [ClusterKeys.node("edge-1"), ClusterKeys.stream("cam")] },
                      "registered again: \(keys(redis))")
        let stored = try ClusterRegistry(connection: redis.connection()).stream("cam")
        XCTAssertEqual(stored, StreamRecord(name: "cam", app: "defaultApp", node: "edge-1", layers: ["q", "f"]))
        XCTAssertTrue(waitUntil(5) { member.snapshot.redisReachable })
        usleep(300_000)
        XCTAssertEqual(lines.count("is back"), 1)
        XCTAssertEqual(lines.count("lost Redis"), 1)

        // A clean stop deletes the node and its claims at once.
        member.stop()
        XCTAssertEqual(keys(redis), [])
        // Control: a stopped member does not register on a new server, so the keys above
        // came from the running member's re-registration.
        try redis.restart()
        usleep(500_000)
        XCTAssertEqual(keys(redis), [])
    }

    /// The defaults tell a dead node within 3 s (issue 9): a 500 ms heartbeat and a 2 s node
    /// record, while claims live longer (a stalled heartbeat keeps its names). Each heartbeat
    /// tells the snapshot's listener, so the edge checks its relayed streams at once.
    func testTheNodeRecordAndClaimsHaveTheirOwnTTLsAndEachHeartbeatTellsTheListener() throws {
        let defaults = ClusterMember.Settings(url: RedisURL(host: "127.0.0.1", port: 1))
        XCTAssertEqual([defaults.heartbeatMs, defaults.ttlMs, defaults.claimTtlMs], [500, 2000, 5000])
        XCTAssertLessThanOrEqual(defaults.ttlMs + defaults.heartbeatMs, 2500, "a dead node drops from the lists within 2.5 s")
        XCTAssertGreaterThan(defaults.claimTtlMs, defaults.ttlMs + defaults.heartbeatMs,
                             "other nodes see the node gone before its names are free")

        let redis = try RedisServerFixture.start()
        var settings = ClusterMember.Settings(url: redis.url)
        settings.heartbeatMs = 100
        settings.ttlMs = 600
        settings.claimTtlMs = 4000
        let member = ClusterMember(settings: settings, nodeId: "edge-1", relayAddress: "127.0.0.1:7001",
                                   signalingURL: "ws://127.0.0.1:8081/ws", log: Lines().log)
        let heartbeats = Mutex(0)
        member.onSnapshot { heartbeats.withLock { $0 += 1 } }
        member.start()
        defer { member.stop() }
        XCTAssertEqual(try member.claim(stream: "cam", app: "x"), .claimed)
        XCTAssertTrue(waitUntil(5) { heartbeats.withLock { $0 } >= 3 }, "the listener hears each heartbeat")
        let connection = redis.connection()
        let nodeTTL = try connection.command(["PTTL", ClusterKeys.node("edge-1")]).integer ?? -1
        let claimTTL = try connection.command(["PTTL", ClusterKeys.stream("cam")]).integer ?? -1
        XCTAssertTrue((1...600).contains(nodeTTL), "node PTTL \(nodeTTL)")
        XCTAssertTrue((1000...4000).contains(claimTTL), "claim PTTL \(claimTTL)")
        // Control: without the listener, the count stays.
        member.onSnapshot(nil)
        let count = heartbeats.withLock { $0 }
        usleep(400_000)
        XCTAssertEqual(heartbeats.withLock { $0 }, count)
    }

    func testReleaseStopsTheRefreshAndAnotherNodeMayClaim() throws {
        let redis = try RedisServerFixture.start()
        let member = member(redis, lines: Lines())
        member.start()
        defer { member.stop() }
        XCTAssertEqual(try member.claim(stream: "a", app: "x"), .claimed)
        XCTAssertEqual(try member.claim(stream: "b", app: "x"), .claimed)
        member.release(stream: "a")
        XCTAssertEqual(member.claimedStreams, ["b"])
        usleep(300_000)
        let registry = ClusterRegistry(connection: redis.connection())
        XCTAssertNil(try registry.stream("a"), "a released name is not brought back by a heartbeat")
        XCTAssertEqual(try registry.claim(StreamRecord(name: "a", app: "x", node: "other"), ttlMs: 1000), .claimed)
        XCTAssertEqual(try registry.claim(StreamRecord(name: "b", app: "x", node: "other"), ttlMs: 1000), .inUse(by: "edge-1"))
    }

    func testSurvivesJunkInsteadOfRedis() throws {
        // Something that is not Redis on the port: a TCP listener that answers junk.
        let port = try RedisServerFixture.freePort()
        let listener = try JunkServer(port: port)
        defer { listener.stop() }
        var settings = ClusterMember.Settings(url: RedisURL(host: "127.0.0.1", port: port))
        settings.heartbeatMs = 100
        settings.connectTimeoutMs = 200
        settings.commandTimeoutMs = 200
        let lines = Lines()
        let member = ClusterMember(settings: settings, nodeId: "n", relayAddress: "127.0.0.1:1", signalingURL: "ws://x",
                                   log: lines.log)
        member.start()
        XCTAssertTrue(waitUntil(5) { member.snapshot.problem != nil }, "\(member.snapshot)")
        XCTAssertFalse(member.snapshot.redisReachable)
        usleep(400_000)
        XCTAssertEqual(lines.count("lost Redis"), 1, lines.lines.withLock { $0 }.joined(separator: "\n"))
        member.stop()
    }

    /// Redis restarts between two heartbeats, so no heartbeat saw it gone: the claim lane's old
    /// link is closed by the server, and a claim must not fail on it (that would refuse a
    /// publish with 1013 although Redis is back).
    func testAClaimAfterRedisRestartedUnseenUsesANewLink() throws {
        let redis = try RedisServerFixture.start()
        var settings = ClusterMember.Settings(url: redis.url)
        settings.heartbeatMs = 60_000
        let member = ClusterMember(settings: settings, nodeId: "edge-1", relayAddress: "127.0.0.1:7001",
                                   signalingURL: "ws://127.0.0.1:8081/ws", log: Lines().log)
        member.start()
        defer { member.stop() }
        // The first (and, within the test, only) heartbeat is done.
        XCTAssertTrue(waitUntil(5) { member.snapshot.redisReachable })
        XCTAssertEqual(try member.claim(stream: "a", app: "x"), .claimed)
        try redis.restart()
        XCTAssertFalse(member.redisKnownUnreachable)
        XCTAssertEqual(try member.claim(stream: "b", app: "x"), .claimed)
        XCTAssertEqual(try ClusterRegistry(connection: redis.connection()).stream("b")?.node, "edge-1")
        member.release(stream: "b")
        XCTAssertNil(try ClusterRegistry(connection: redis.connection()).stream("b"), "released on the new link")
    }
}

/// A TCP server on 127.0.0.1 that answers every connection with bytes no Redis would send.
final class JunkServer: @unchecked Sendable {
    private let fd: Int32
    private let stopped = Atomic<Bool>(false)

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let ok = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard ok, listen(fd, 16) == 0 else { close(fd); throw XCTSkip("cannot listen on \(port)") }
        Thread { [self] in
            while !stopped.load(ordering: .acquiring) {
                let client = accept(fd, nil, nil)
                if client < 0 { break }
                let junk = Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)
                _ = junk.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(client)
            }
        }.start()
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}
