import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SluiceClient
import SluiceJSON
import SluiceTestMedia
import Testing

/// Memory flat under churn (issue 33): players join a live stream and leave it in each of the
/// three ways a player leaves (`stop`, a disconnect, a socket that goes silent and is found by
/// the ICE consent timeout), and afterwards every table the server keeps per session, handle,
/// stream and data channel (`GET /api/v1/tables`) is back to its size before the first join.
/// A table that keeps a record per join fails it by name: RSS, which the allocator blurs, is
/// not looked at.
@Suite(.serialized) struct ChurnTableTests {
    static let adminToken = "churn-table-test-admin-token"
    /// Joins per way of leaving (SLUICE_CHURN_JOINS to change it).
    static let joinsPerWay = Int(ProcessInfo.processInfo.environment["SLUICE_CHURN_JOINS"] ?? "") ?? 1000
    /// Players joining at once; a dropped player waits out the consent timeout, so more of
    /// them wait at once.
    static func lanes(_ leave: Leave) -> Int { leave == .drop ? 64 : 16 }

    enum Leave: String, CaseIterable { case stop, disconnect, drop }

    @Test func everyTableIsBackToItsSizeAfterJoinsAndLeavesOfEachKind() async throws {
        let server = try TestServer(workers: 2) { config in
            config.adminToken = Self.adminToken
            // Short, so drops end soon; not 1 s, which a loaded machine's joins can outlast.
            config.iceConsentTimeoutSeconds = 2
            config.maxSessions = 10_000
        }
        defer { server.shutdown() }
        let pool = try MediaWorkerPool(count: 2, poolCapacity: 4096)
        defer { pool.stop() }

        let (publisherSession, publisherLog) = try await server.connectedSession()
        let publisher = try PeerConnection(configuration: .init(role: .publish), worker: pool.next(), security: pool.security)
        defer { publisher.close() }
        let source = SyntheticPublisher(video: .init(width: 320, height: 240, fps: 30, bitrateKbps: 300,
                                                     keyFrameIntervalSeconds: 1))
        publisher.delegate = source
        let published = try await publisherSession.publish(stream: "churn", sdp: publisher.localDescription)
        try await publisher.setRemoteDescription(published.sdp)
        try await publisher.waitUntilConnected()
        _ = try await publisherLog.streamStatus(handle: published.handle, .publishing)

        // One join and leave first, so tables that are made once (the first relayed stream on
        // a worker, a first data-channel-less handle) are counted in the baseline.
        try await Self.join(server, pool, leave: .stop)
        let before = try await Self.tables(server)
        var joins = 0
        var cutShort: [String] = []
        for leave in Leave.allCases {
            // A join that fails on the way in (on a loaded machine a player's ICE may lapse
            // before it connects: the server ends it as it would a dropped one) is a way out
            // too; the tables must come back all the same. Counted, and bounded below.
            let failures = try await withThrowingTaskGroup(of: [String].self) { group in
                let lanes = Self.lanes(leave)
                for lane in 0..<lanes {
                    group.addTask {
                        var failed: [String] = []
                        for _ in stride(from: lane, to: Self.joinsPerWay, by: lanes) {
                            do {
                                try await Self.join(server, pool, leave: leave)
                            } catch {
                                failed.append("\(error)")
                            }
                        }
                        return failed
                    }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            cutShort += failures
            joins += Self.joinsPerWay
        }
        #expect(cutShort.count * 10 <= joins, "\(cutShort.count) of \(joins) joins failed: \(cutShort.prefix(5))")

        // The last leaves' ends may still be on their way through the workers' inboxes.
        var after = try await Self.tables(server)
        let deadline = Date().addingTimeInterval(15)
        while after != before, Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
            after = try await Self.tables(server)
        }
        let grown = after.keys.sorted().filter { after[$0] != before[$0] }
            .map { "\($0): \(before[$0] ?? 0) -> \(after[$0] ?? 0)" }
        #expect(grown.isEmpty, "after \(joins) joins and leaves: \(grown.joined(separator: ", "))")
        // The tables were read for real: the live publisher shows in them.
        #expect(before["engine.handles"] == 1 && before["streams.producers"] == 1 && before["sessions.connected"] == 1,
                "\(before)")
        try await publisherSession.disconnect()
    }

    /// One player: connect, play, ICE and DTLS up, PLAYING, then away by `leave`.
    static func join(_ server: TestServer, _ pool: MediaWorkerPool, leave: Leave) async throws {
        let (session, log) = try await server.connectedSession()
        let player = try PeerConnection(configuration: .init(role: .play), worker: pool.next(), security: pool.security)
        do {
            let played = try await session.play(stream: "churn", sdp: player.localDescription)
            try await player.setRemoteDescription(played.sdp)
            // Generous bounds: the suite runs beside other tests on a 2-core machine.
            try await player.waitUntilConnected(timeout: 60)
            _ = try await log.first(within: 60) { notification in
                if case .streamStatus(let s) = notification { return s.handle == played.handle && s.status == .playing }
                return false
            }
            switch leave {
            case .stop:
                try await session.stop(handle: played.handle)
                player.close()
                try await session.disconnect()
            case .disconnect:
                try await session.disconnect()
                player.close()
            case .drop:
                player.drop()
                _ = try await log.first(within: 60) { notification in
                    if case .streamStatus(let s) = notification { return s.handle == played.handle && s.status == .failed }
                    return false
                }
                session.close()
            }
        } catch {
            player.close()
            session.close()
            throw error
        }
    }

    /// `GET /api/v1/tables` with the admin token, as a dictionary.
    static func tables(_ server: TestServer) async throws -> [String: Int] {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/api/v1/tables")!)
        request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw ClientTestError("GET /api/v1/tables: \(response)")
        }
        let body = try JSONDecoder().decode([String: [String: Int]].self, from: data)
        var tables = try body["tables"].unwrapped("tables")
        // The request that reads them is an exchange of its own.
        tables["signaling.exchanges"] = nil
        return tables
    }
}
