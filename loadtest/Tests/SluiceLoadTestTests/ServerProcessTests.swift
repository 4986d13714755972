import Foundation
import Glibc
import Testing
@testable import SluiceLoadTest

/// The spawned server's plumbing: its output goes to the log, and it sees SIGTERM (it would
/// not if it inherited the blocked signals of the Swift thread that spawns it).
struct ServerProcessTests {
    @Test func spawnedProcessLogsAndStopsOnSIGTERM() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("server-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let server = try ServerProcess(path: "/bin/sh",
                                       arguments: ["-c", "echo started; trap 'echo stopping; exit 7' TERM; while :; do sleep 0.05; done"],
                                       logPath: log)
        #expect(server.isRunning)
        for _ in 0..<200 where !server.tail().contains("started") { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(server.stop(grace: 30) == 7)
        #expect(!server.isRunning)
        #expect(server.tail().contains("stopping"))
        #expect(ProcessStat.pageSize > 0)
    }

    @Test func aMissingBinaryIsAClearError() {
        #expect(throws: LoadTestError.server("--spawn /no/such/sluice is not an executable file")) {
            try ServerProcess(path: "/no/such/sluice", arguments: [], logPath: "/tmp/unused.log")
        }
    }
}
