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

    /// Two nodes that see each other, a sender on node-a and a receiver on node-b (logging to
    /// `log`), both started; `seen` holds the receiver's last read. The caller stops them.
    private struct Pair {
        let members: (ClusterMember, ClusterMember)
        let sender: LevelExchange
        let receiver: LevelExchange
        let seen: Seen

        func stop() {
            sender.stop()
            receiver.stop()
            members.0.stop()
            members.1.stop()
        }
    }

    /// The receiver's last read, shared with its listener.
    private final class Seen: Sendable {
        let records = Mutex<[LevelRecord]>([])
        func withLock<T>(_ body: (inout [LevelRecord]) -> T) -> T { records.withLock { body(&$0) } }
    }

    private func pair(_ redis: RedisServerFixture, log: ClusterLog = .silent) -> Pair {
        let (a, b) = (member(redis, "node-a"), member(redis, "node-b"))
        a.start()
        b.start()
        XCTAssertTrue(waitUntil(5) { a.snapshot.nodes.count == 2 && b.snapshot.nodes.count == 2 })
        let pair = Pair(members: (a, b), sender: LevelExchange(member: a, periodMs: 50),
                        receiver: LevelExchange(member: b, periodMs: 50, log: log), seen: Seen())
        pair.receiver.onRemote { [seen = pair.seen] records in seen.withLock { $0 = records } }
        pair.sender.start()
        pair.receiver.start()
        return pair
    }

    func testLevelsCrossNodes() throws {
        let redis = try RedisServerFixture.start()
        let pair = pair(redis)
        defer { pair.stop() }
        let (sender, seen) = (pair.sender, pair.seen)

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
        let lines = Mutex<[String]>([])
        let pair = pair(redis, log: ClusterLog(info: { line in lines.withLock { $0.append(line) } },
                                               warn: { line in lines.withLock { $0.append(line) } }))
        defer { pair.stop() }
        let (sender, seen, b) = (pair.sender, pair.seen, pair.members.1)
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
