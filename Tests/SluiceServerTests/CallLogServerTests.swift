import Foundation
import SluiceCluster
import SluiceJSON
import SluiceSignaling
import SluiceTestPostgres
import Testing
import SluiceLog
@testable import SluiceServer

/// Which call log `calls.database` opens, and the one log two servers share in PostgreSQL
/// (PostgreSQL from `PostgresServerFixture`, started by the tests).
@Suite struct CallLogServerTests {
    @Test func theDatabaseIsAPathOrAPostgresURL() throws {
        let url = "postgresql://sluice:Pa55-word@db.internal:5433/calls"
        let config = try parseConfig(#"{"calls": {"database": "\#(url)"}}"#)
        #expect(config.callLogLocation(configPath: "/etc/sluice/sluice.json") == .postgres(url: url))
        #expect(config.callDatabasePath(configPath: "/etc/sluice/sluice.json") == nil)
        #expect(try parseConfig(#"{"calls": {"database": "postgres://db/calls"}}"#)
            .callLogLocation(configPath: nil) == .postgres(url: "postgres://db/calls"))
        #expect(try parseConfig("{}").callLogLocation(configPath: "/etc/sluice/sluice.json")
            == .sqlite(path: "/etc/sluice/calls.db"))
        #expect(try parseConfig(#"{"calls": {"database": ""}}"#).callLogLocation(configPath: nil) == nil)
        // A URL libpq cannot read stops the start, and the error does not repeat the password.
        let bad = #"{"calls": {"database": "postgresql://sluice:Pa55-word@db:notaport/calls?bogus=1"}}"#
        try expectConfigError(bad, key: "calls.database", problem: "PostgreSQL URL")
        do {
            _ = try parseConfig(bad)
        } catch let error as ConfigError {
            #expect(!error.problem.contains("Pa55-word"), "\(error.problem)")
        }
    }

    /// A cluster whose nodes each keep an SQLite file is told so once at start.
    @Test func aClusterWithAnSQLiteFileIsWarned() throws {
        func warnings(cluster: Bool, database: String) throws -> [String] {
            let lines = LogLines()
            var config = ServerConfig()
            config.callDatabase = database
            if cluster {
                config.cluster = ClusterConfig(redis: RedisURL(host: "127.0.0.1", port: 6379), nodeId: "n1",
                                               relayAddress: "127.0.0.1:40000")
            }
            let log = try Server.openCallLog(config, log: Log(level: .info, sink: { lines.add($0) }))
            log?.close()
            return lines.all.filter { $0.contains(" warn ") }
        }
        let path = CallsServerTests.databasePath()
        let warned = try warnings(cluster: true, database: path)
        #expect(warned.count == 1, "\(warned)")
        #expect(warned.first?.contains("each node keeps its own log") == true, "\(warned)")
        #expect(try warnings(cluster: false, database: path).isEmpty)
        let postgres = try PostgresServerFixture.shared.get().createDatabase()
        #expect(try warnings(cluster: true, database: postgres).isEmpty)
    }

    /// Two servers on one PostgreSQL database, as two nodes of a cluster: a call made through
    /// one is in the other's log, and neither lost a record.
    @Test func twoServersShareOneLogInPostgres() throws {
        let database = try PostgresServerFixture.shared.get().createDatabase()
        let first = try CallsServerTests.fixture(database: database)
        let second = try CallsServerTests.fixture(database: database)
        let (alice, aliceOut) = try CallsServerTests.connect(first, user: "alice")
        let made = first.rpc("call", ["to": "carol"], session: alice, output: aliceOut, id: 2)
        let callID = try #require(made?["result"]?["callId"]?.stringValue, "\(String(describing: made))")
        #expect(aliceOut.notifications("callStatus").last?["params"]?["endResult"]?.stringValue == "noAnswer")
        first.server.callLog?.flush()

        let page = try json(second.request("GET", "/api/v1/calls?user=alice"))
        let record = try #require(page["calls"]?.arrayValue?.first, "\(page)")
        #expect(record["callId"]?.stringValue == callID)
        #expect(record["endResult"]?.stringValue == "noAnswer")
        let (carol, carolOut) = try CallsServerTests.connect(second, user: "carol")
        let own = second.rpc("callLog", [:], session: carol, output: carolOut, id: 3)
        #expect(own?["result"]?["calls"]?.arrayValue?.map { $0["callId"]?.stringValue } == [callID])

        for fixture in [first, second] {
            let metrics = String(decoding: fixture.request("GET", "/metrics", token: nil).body, as: UTF8.self)
            #expect(metrics.contains("\nsluice_call_log_dropped_total 0\n"), "\(metrics.suffix(400))")
        }
    }

    @Test func theDropCounterIsShownOnlyWhenTheLogIsOn() throws {
        let on = try CallsServerTests.fixture(database: CallsServerTests.databasePath())
        let off = try AdminFixture()
        let text = { (fixture: AdminFixture) in String(decoding: fixture.request("GET", "/metrics", token: nil).body, as: UTF8.self) }
        #expect(text(on).contains("# TYPE sluice_call_log_dropped_total counter\nsluice_call_log_dropped_total 0\n"))
        #expect(!text(off).contains("sluice_call_log_dropped_total"))
    }
}

private final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}
