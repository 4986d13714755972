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
