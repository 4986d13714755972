import Foundation
import Glibc
import Testing
@testable import SluiceLoadTest

struct ProcessStatTests {
    /// A line as Linux writes it; the command holds a space and a parenthesis.
    static let line = "4242 (sluice (x) 1) S 1 4242 4242 0 -1 4194560 2511 0 0 0 731 264 0 0 20 0 5 0 "
        + "1234567 1098907648 9612 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n"

    @Test func fieldsAfterTheCommandAreCountedFromTheLastParenthesis() throws {
        let stat = try ProcessStat(parsing: Self.line)
        #expect(stat.pid == 4242 && stat.command == "sluice (x) 1" && stat.state == "S")
        #expect(stat.userTicks == 731 && stat.systemTicks == 264 && stat.rssPages == 9612)
        #expect(stat.cpuMicros(ticksPerSecond: 100) == 9_950_000)
        #expect(stat.cpuMicros(ticksPerSecond: 1000) == 995_000)
        #expect(stat.rssBytes(pageSize: 4096) == 9612 * 4096)
    }

    @Test(arguments: [
        "", "4242 sluice S 1", "(sluice) S", "4242 (sluice) S 1 2 3", "x (sluice) S " + String(repeating: "0 ", count: 40),
        "4242 (sluice) S 1 4242 4242 0 -1 4194560 2511 0 0 0 abc 264 0 0 20 0 5 0 1 1 9612",
        "4242 (sluice) SS 1 4242 4242 0 -1 4194560 2511 0 0 0 1 264 0 0 20 0 5 0 1 1 9612",
    ])
    func malformedLinesAreErrorsNotCrashes(line: String) {
        #expect(throws: ProcessStatError.self) { try ProcessStat(parsing: line) }
    }

    @Test func readsThisProcess() throws {
        let stat = try ProcessStat.read(pid: getpid())
        #expect(stat.pid == getpid() && stat.rssPages > 0)
        #expect(ProcessStat.ticksPerSecond > 0 && ProcessStat.pageSize > 0)
        #expect(throws: ProcessStatError.self) { try ProcessStat.read(pid: Int32.max) }
    }

    @Test func healthStatusLines() {
        #expect(HealthCheck.statusCode("HTTP/1.1 200 OK\r\nContent-Type: x\r\n\r\n") == 200)
        #expect(HealthCheck.statusCode("HTTP/1.0 503 Service Unavailable\r\n") == 503)
        #expect(HealthCheck.statusCode("garbage") == nil)
        #expect(HealthCheck.statusCode("HTTP/1.1 abc OK") == nil)
        #expect(HealthCheck.statusCode("") == nil)
        // Nothing listens on port 1 of loopback; a non-loopback host is never tried.
        #expect(HealthCheck.get(host: "127.0.0.1", port: 1) == nil)
        #expect(HealthCheck.get(host: "0.0.0.0", port: 8080) == nil)
    }
}
