import Foundation
import Glibc

/// A server the load tester started (`--spawn`): its output goes to `server.log` in the
/// output folder; it is stopped with SIGTERM (SIGKILL if it lingers) at the end.
final class ServerProcess: @unchecked Sendable {
    let process: Process
    let logPath: String

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    init(path: String, arguments: [String], logPath: String) throws {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw LoadTestError.server("--spawn \(path) is not an executable file")
        }
        guard FileManager.default.createFile(atPath: logPath, contents: nil),
              let log = FileHandle(forWritingAtPath: logPath) else {
            throw LoadTestError.output("cannot write \(logPath)")
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        self.logPath = logPath
        do {
            try process.run()
        } catch {
            throw LoadTestError.server("cannot start \(path): \(error)")
        }
    }

    /// Polls `GET /health` until it answers 200; throws when the process exits or `seconds` pass.
    func waitUntilHealthy(host: String, port: Int, seconds: Double) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            guard process.isRunning else {
                throw LoadTestError.server("exited with status \(process.terminationStatus) before answering /health; "
                                           + "its log: \(logPath)\n\(tail())")
            }
            if HealthCheck.get(host: host, port: port) == 200 { return }
            guard Date() < deadline else {
                throw LoadTestError.server("no 200 from http://\(host):\(port)/health within \(Int(seconds)) s "
                                           + "(does --url's port match the config's server.port?); its log: \(logPath)")
            }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
    }

    /// SIGTERM, then SIGKILL after `grace` seconds. Returns the exit status.
    @discardableResult
    func stop(grace: Double = 10) -> Int32 {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(grace)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        return process.terminationStatus
    }

    /// The last lines of the server's log.
    func tail(lines: Int = 20) -> String {
        guard let data = FileManager.default.contents(atPath: logPath), let text = String(data: data, encoding: .utf8) else {
            return ""
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}

/// A minimal HTTP/1.0 GET over a loopback TCP socket (the health check needs nothing more).
enum HealthCheck {
    /// The status code, or nil when nothing answered within a second.
    static func get(host: String, port: Int, path: String = "/health") -> Int? {
        guard LoopbackURL.isLoopbackIPv4(host), (1...65535).contains(port) else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: \(host):\(port)\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            return nil
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while response.count < 4096 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            response += chunk[0..<n]
            if response.contains(10) { break }
        }
        return statusCode(String(decoding: response, as: UTF8.self))
    }

    /// The code of an HTTP status line ("HTTP/1.1 200 OK" -> 200).
    static func statusCode(_ response: String) -> Int? {
        let line = response.split(separator: "\r\n", maxSplits: 1).first ?? ""
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let code = Int(parts[1]), (100...599).contains(code) else { return nil }
        return code
    }
}
