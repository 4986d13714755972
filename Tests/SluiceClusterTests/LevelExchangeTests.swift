import Foundation
import SluiceCluster
import SluiceJSON
import Synchronization
import XCTest

/// Audio levels between two nodes over a real redis-server: what one node sets, the other
/// reads within a few periods; an emptied set and a stopped node are gone; junk is skipped.
final class LevelExchangeTests: XCTestCase {
    private func member(_ redis: RedisServerFixture, _ id: String) -> ClusterMember {
        var settings = ClusterMember.Settings(url: redis.url)
        settings.heartbeatMs = 100
        settings.ttlMs = 1000
        return ClusterMember(settings: settings, nodeId: id, relayAddress: "127.0.0.1:7001",
                             signalingURL: "ws://127.0.0.1:8081/ws")
    }

    func testLevelsCrossNodes() throws {
        let redis = try RedisServerFixture.start()
        let (a, b) = (member(redis, "node-a"), member(redis, "node-b"))
        a.start()
        b.start()
        defer { a.stop(); b.stop() }
        XCTAssertTrue(waitUntil(5) { a.snapshot.nodes.count == 2 && b.snapshot.nodes.count == 2 })
        let (sender, receiver) = (LevelExchange(member: a, periodMs: 50), LevelExchange(member: b, periodMs: 50))
        let seen = Mutex<[LevelRecord]>([])
        receiver.onRemote { records in seen.withLock { $0 = records } }
        sender.start()
        receiver.start()
        defer { receiver.stop() }

        let levels = [LevelRecord.Entry(stream: "room-a", level: -23.5, voice: -21, muted: false),
                      LevelRecord.Entry(stream: "room-b", level: -127, voice: -127, muted: true)]
        sender.setLocal(levels)
        XCTAssertTrue(waitUntil(5) { seen.withLock { $0 } == [LevelRecord(node: "node-a", entries: levels)] },
                      "\(seen.withLock { $0 })")
        sender.setLocal([])
        XCTAssertTrue(waitUntil(5) { seen.withLock { $0 }.isEmpty }, "an emptied set deletes the key")

        sender.setLocal(levels)
        XCTAssertTrue(waitUntil(5) { !seen.withLock { $0 }.isEmpty })
        sender.stop()
        XCTAssertTrue(waitUntil(5) { seen.withLock { $0 }.isEmpty }, "a stopped node deletes its key")
    }

    /// Redis going away stops the levels, logged once; when it returns they flow again, and
    /// that is logged once too. Junk under a node's key is skipped, never fatal.
    func testSurvivesRedisDyingAndJunk() throws {
        let redis = try RedisServerFixture.start()
        let (a, b) = (member(redis, "node-a"), member(redis, "node-b"))
        a.start()
        b.start()
        defer { a.stop(); b.stop() }
        XCTAssertTrue(waitUntil(5) { a.snapshot.nodes.count == 2 && b.snapshot.nodes.count == 2 })
        let lines = Mutex<[String]>([])
        let log = ClusterLog(info: { line in lines.withLock { $0.append(line) } },
                             warn: { line in lines.withLock { $0.append(line) } })
        let (sender, receiver) = (LevelExchange(member: a, periodMs: 50),
                                  LevelExchange(member: b, periodMs: 50, log: log))
        let seen = Mutex<[LevelRecord]>([])
        receiver.onRemote { records in seen.withLock { $0 = records } }
        sender.start()
        receiver.start()
        defer { sender.stop(); receiver.stop() }
        let levels = [LevelRecord.Entry(stream: "cam", level: -30, voice: -28, muted: false)]
        sender.setLocal(levels)
        XCTAssertTrue(waitUntil(5) { !seen.withLock { $0 }.isEmpty })

        redis.kill()
        usleep(500_000)
        XCTAssertEqual(lines.withLock { $0 }.filter { $0.hasPrefix("audio levels:") }.count, 1, "\(lines.withLock { $0 })")
        try redis.restart()
        XCTAssertTrue(waitUntil(5) { b.snapshot.nodes.count == 2 }, "the nodes registered again")
        seen.withLock { $0 = [] }
        XCTAssertTrue(waitUntil(5) { seen.withLock { $0 } == [LevelRecord(node: "node-a", entries: levels)] })
        XCTAssertTrue(lines.withLock { $0 }.contains("audio levels: Redis answers again"), "\(lines.withLock { $0 })")

        // Another program's junk under a level key: skipped.
        _ = try redis.connection().command(["SET", "sluice:levels:node-a", "not json", "PX", "5000"])
        sender.stop()  // its key would be written over
        _ = try redis.connection().command(["SET", "sluice:levels:node-a", "not json", "PX", "5000"])
        XCTAssertTrue(waitUntil(5) { seen.withLock { $0 }.isEmpty }, "junk is no record")
    }

    func testRecordsRefuseJunk() {
        let good = LevelRecord(node: "n", entries: [.init(stream: "s", level: -10, voice: -12, muted: false)])
        XCTAssertEqual(LevelRecord(json: good.json), good)
        for bad: JSONValue in [
            ["node": "n", "levels": [["s": "s", "l": 5, "v": -10, "m": false]]],  // above 0 dBov
            ["node": "n", "levels": [["s": "s", "l": -10, "v": -200, "m": false]]],  // below -127
            ["node": "n", "levels": [["s": "s", "l": -10, "m": false]]],  // no voice
            ["node": "n", "levels": [["s": "s", "l": -10, "v": -10]]],  // no mute flag
            ["node": "n", "levels": [["s": "", "l": -10, "v": -10, "m": false]]],  // no name
            ["node": "", "levels": []],
            ["levels": []],
        ] {
            XCTAssertNil(LevelRecord(json: bad), "\(bad)")
        }
    }
}
