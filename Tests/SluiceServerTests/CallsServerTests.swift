import Foundation
import SluiceJSON
import SluiceJSONParser
import SluiceSignaling
import Testing
@testable import SluiceServer

/// Calls through a whole `Server` (signaling, the call book, the admin API) with the call log
/// in a real SQLite file. Media is not part of these: interop/test_calls.py sends it.
@Suite struct CallsServerTests {
    static func databasePath() -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-calls-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("calls.db").path
    }

    /// A server whose "demo" app trusts `connect`'s user, with the log at `database`.
    static func fixture(database: String) throws -> AdminFixture {
        try AdminFixture { config in
            config.callDatabase = database
            config.apps[0].trustClientUser = true
        }
    }

    static func connect(_ fixture: AdminFixture, user: String?) throws -> (RPCSession, AdminRecordingOutput) {
        let output = AdminRecordingOutput()
        let session = fixture.sessions.open(output: output)
        var params: JSONObject = ["appKey": "demo"]
        if let user { params["user"] = .string(user) }
        let message: JSONValue = ["jsonrpc": "2.0", "id": 1, "method": "connect", "params": .object(params)]
        fixture.sessions.receive(message.serialized(), from: session)
        #expect(output.reply(id: 1)?["result"]?["identity"]?.stringValue == user)
        return (session, output)
    }

    @Test func aCallRingsIsAcceptedAndHungUpAndTheLogKeepsIt() throws {
        let path = Self.databasePath()
        let fixture = try Self.fixture(database: path)
        let (alice, aliceOut) = try Self.connect(fixture, user: "alice")
        let (bob, bobOut) = try Self.connect(fixture, user: "bob")
        let (bob2, bob2Out) = try Self.connect(fixture, user: "bob")

        let made = fixture.rpc("call", ["to": "bob", "video": true, "audio": true, "custom": ["topic": "hi"]],
                               session: alice, output: aliceOut, id: 2)
        let callID = try #require(made?["result"]?["callId"]?.stringValue, "\(String(describing: made))")
        for output in [bobOut, bob2Out] {
            let ring = try #require(output.notifications("incomingCall").first?["params"])
            #expect(ring["callId"]?.stringValue == callID)
            #expect(ring["from"]?.stringValue == "alice")
            #expect(ring["custom"]?["topic"]?.stringValue == "hi")
        }
        #expect(aliceOut.notifications("callStatus").last?["params"]?["status"]?.stringValue == "RINGING")

        let accepted = fixture.rpc("accept", ["callId": .string(callID)], session: bob2, output: bob2Out, id: 3)
        #expect(accepted?["result"]?["publish"]?.stringValue == "~call-\(callID)-callee")
        #expect(accepted?["result"]?["play"]?.stringValue == "~call-\(callID)-caller")
        #expect(bobOut.notifications("callStatus").last?["params"]?["endResult"]?.stringValue == "otherDeviceAccepted")
        #expect(aliceOut.notifications("callStatus").last?["params"]?["status"]?.stringValue == "CONNECTING")

        // The other device cannot hang up a call it did not take.
        let wrongDevice = fixture.rpc("hangup", ["callId": .string(callID)], session: bob, output: bobOut, id: 4)
        #expect(wrongDevice?["error"]?["code"]?.intValue == 1015)
        let hungUp = fixture.rpc("hangup", ["callId": .string(callID)], session: alice, output: aliceOut, id: 5)
        #expect(hungUp?["error"] == nil, "\(String(describing: hungUp))")
        for output in [aliceOut, bob2Out] {
            let end = try #require(output.notifications("callStatus").last?["params"])
            #expect(end["status"]?.stringValue == "ENDED")
            #expect(end["endResult"]?.stringValue == "completed")
            #expect(end["by"]?.stringValue == "alice")
        }

        // A callee with no session: noAnswer, logged too.
        let lonely = fixture.rpc("call", ["to": "carol"], session: alice, output: aliceOut, id: 6)
        let lonelyID = try #require(lonely?["result"]?["callId"]?.stringValue)
        #expect(aliceOut.notifications("callStatus").last?["params"]?["endResult"]?.stringValue == "noAnswer")

        fixture.server.callLog?.flush()
        let page = try json(fixture.request("GET", "/api/v1/calls?user=alice"))
        let records = try #require(page["calls"]?.arrayValue, "\(page)")
        #expect(records.map { $0["callId"]?.stringValue } == [lonelyID, callID])
        let record = try #require(records.last)
        #expect(record["caller"]?.stringValue == "alice")
        #expect(record["callee"]?.stringValue == "bob")
        #expect(record["endResult"]?.stringValue == "completed")
        #expect(record["endedBy"]?.stringValue == "alice")
        #expect(record["answeredAt"]?.intValue != nil)
        #expect(record["custom"]?["topic"]?.stringValue == "hi")
        #expect(records.first?["endResult"]?.stringValue == "noAnswer")

        // Bob's own log over the WebSocket holds only his call.
        let own = fixture.rpc("callLog", [:], session: bob, output: bobOut, id: 7)
        #expect(own?["result"]?["calls"]?.arrayValue?.map { $0["callId"]?.stringValue } == [callID])
        #expect(fixture.request("GET", "/api/v1/calls?limit=0").status == 400)
        #expect(fixture.request("GET", "/api/v1/calls", token: "wrong").status == 401)

        // The file outlives the server: a new one reads the same log.
        fixture.server.shutdown()
        let again = try Self.fixture(database: path)
        let reread = try json(again.request("GET", "/api/v1/calls?limit=1"))
        #expect(reread["calls"]?.arrayValue?.first?["callId"]?.stringValue == lonelyID)
        #expect(reread["nextCursor"]?.stringValue != nil)
    }

    @Test func callsNeedAUserAndTheLogCanBeOff() throws {
        let fixture = try AdminFixture { $0.apps[0].trustClientUser = true }
        let (anonymous, anonymousOut) = try Self.connect(fixture, user: nil)
        let refused = fixture.rpc("call", ["to": "bob"], session: anonymous, output: anonymousOut, id: 2)
        #expect(refused?["error"]?["code"]?.intValue == 1016)
        let (alice, aliceOut) = try Self.connect(fixture, user: "alice")
        let log = fixture.rpc("callLog", [:], session: alice, output: aliceOut, id: 3)
        #expect(log?["error"]?["code"]?.intValue == 1008)
        #expect(fixture.request("GET", "/api/v1/calls").status == 409)
    }

    @Test func aDatabaseThatCannotBeOpenedStopsTheStartNamingTheKey() throws {
        let folder = Self.databasePath()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var config = ServerConfig()
        config.rtcWorkers = 1
        config.callDatabase = folder  // a folder, not a file
        // Random ports: one another socket holds (a test's client connection) is tried again.
        for _ in 0..<10 {
            config.httpPort = Int.random(in: 20000...60000)
            config.rtcPort = Int.random(in: 20000...60000)
            do {
                _ = try Server(config: config)
                Issue.record("a server started with a folder as its call log")
            } catch let error as ConfigError {
                #expect(error.key == "calls.database")
                #expect(error.problem.contains(folder), "\(error.problem)")
            } catch where "\(error)".contains("Address already in use") {
                continue
            }
            return
        }
    }

    @Test func theCallsSectionOfAConfigFile() throws {
        let defaults = try parseConfig("{}")
        #expect(defaults.callDatabase == "calls.db")
        #expect(defaults.callDatabasePath(configPath: "/etc/sluice/sluice.json") == "/etc/sluice/calls.db")
        let set = try parseConfig("""
            {"calls": {"ringTimeoutSeconds": 30, "reconnectSeconds": 0, "perMinute": 5, "mediaTimeoutSeconds": 4,
                       "database": "/var/lib/sluice/c.db"},
             "apps": [{"key": "a", "trustClientUser": true, "calls": {"callWaiting": true}}]}
            """)
        #expect(set.calls.ringTimeoutSeconds == 30)
        #expect(set.calls.reconnectSeconds == 0)
        #expect(set.calls.perMinute == 5)
        #expect(set.calls.mediaTimeoutSeconds == 4)
        #expect(defaults.calls.mediaTimeoutSeconds == 2)
        #expect(set.callDatabasePath(configPath: "/etc/sluice.json") == "/var/lib/sluice/c.db")
        #expect(set.apps[0].trustClientUser)
        #expect(set.apps[0].calls.callWaiting)
        #expect(try parseConfig(#"{"calls": {"database": ""}}"#).callDatabasePath(configPath: nil) == nil)
        try expectConfigError(#"{"calls": {"ringTimeoutSeconds": 0}}"#, key: "calls.ringTimeoutSeconds", problem: "between 1 and 3600")
        try expectConfigError(#"{"calls": {"ring": 5}}"#, key: "calls.ring", problem: "is not a known setting")
        try expectConfigError(#"{"apps": [{"key": "a", "calls": {"waiting": true}}]}"#, key: "apps[0].calls.waiting",
                              problem: "is not a known setting")
    }
}
