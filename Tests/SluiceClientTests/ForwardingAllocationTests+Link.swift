import Foundation
import SluiceClient
import SluiceCluster
import Testing
@testable import SluiceServer

/// Hot-path rule 1 across nodes: two cluster nodes in this process on a real redis-server, the
/// publisher on the origin and three players on the edge, fed over one relay link. The window
/// counts both nodes' packet paths: the origin's (its publisher's packets, the link's copy,
/// SRTP, send) and the edge's (the link's packets in, the fan-out to its players). In the
/// serialized suite of the other allocation tests: the malloc counters are the process's.
extension ForwardingAllocationTests {
    static let clusterSecret = "allocation-test-cluster-secret"

    @Test(.enabled(if: ForwardingAllocationTests.isOptimized, "run with swift test -c release"),
          .enabled(if: RedisProcess.isInstalled, "needs redis-server (scripts/install-deps.sh --test)"))
    func relayLinkForwardingAllocatesNothingPerPacket() async throws {
        let redis = try RedisProcess.start()
        defer { redis.stop() }
        func node(_ id: String) throws -> TestServer {
            try TestServer { config in
                config.cluster = ClusterConfig(redis: redis.url, nodeId: id, relayAddress: "127.0.0.1:\(config.rtcPort)",
                                               secret: Self.clusterSecret)
            }
        }
        let origin = try node("origin")
        defer { origin.shutdown() }
        let edge = try node("edge")
        defer { edge.shutdown() }

        let (publisher, source) = try await AllocationRun.publish(on: origin)
        // The source lives until the end: the connection holds its delegate weakly.
        defer { publisher.close(); withExtendedLifetime(source) {} }
        // The edge plays once the registry lists the origin's stream (a heartbeat or two).
        let players = try await AllocationRun.play(on: edge, count: 3, retrySeconds: 10)
        defer { for (player, _) in players { player.close() } }
        let window = try await AllocationRun.measure(players: players, worker: edge.server.media.workers[0])

        let links = origin.server.media.linkViews
        print("relay-link forwarding allocations: \(window.allocations) in Sluice, \(window.inLibsrtp) in libsrtp, "
              + "over \(window.forwarded) packets forwarded to 3 players on the edge; links \(links.map(\.edgeNode))")
        #expect(links.map(\.edgeNode) == ["edge"], "the edge's players are not fed over one link: \(links)")
        #expect(window.forwarded > 300, "too little media flowed to measure (\(window.forwarded) packets)")
        #expect(window.allocations == 0, "\(window.allocations) heap allocations while relaying \(window.forwarded) packets")
        // SRTP on OpenSSL on both nodes, the link included: nothing left out as libsrtp's.
        #expect(window.inLibsrtp == 0, "\(window.inLibsrtp) allocations excluded as libsrtp's")
    }
}

/// A real redis-server on 127.0.0.1 for one test: a free port, no persistence, killed after.
final class RedisProcess {
    static let binary = "/usr/bin/redis-server"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: binary) }
    let url: RedisURL
    private let process: Process

    private init(port: Int, process: Process) {
        url = RedisURL(host: "127.0.0.1", port: port)
        self.process = process
    }

    static func start() throws -> RedisProcess {
        for _ in 0..<10 {
            let port = Int.random(in: 20000...60000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no",
                                 "--daemonize", "no", "--loglevel", "warning"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let redis = RedisProcess(port: port, process: process)
            let probe = RedisConnection(url: redis.url, connectTimeoutMs: 500, commandTimeoutMs: 1000)
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, process.isRunning {
                if (try? probe.command(["PING"])) == .status("PONG") { return redis }
                usleep(20_000)
            }
            redis.stop()  // the port was taken, or it did not come up: another port
        }
        throw ClientTestError("redis-server did not start on 127.0.0.1")
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
