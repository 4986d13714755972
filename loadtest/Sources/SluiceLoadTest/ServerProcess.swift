import Foundation
import Glibc

/// A server the load tester started (`--spawn`): its output goes to `server.log` in the
/// output folder; it is stopped with SIGTERM (SIGKILL if it lingers) at the end.
///
/// posix_spawn with an empty signal mask and default dispositions: the thread that spawns
/// it is one of Swift's, which block signals, and a server that inherited that mask would
/// never see its SIGTERM.
final class ServerProcess: @unchecked Sendable {
    let pid: pid_t
    let logPath: String
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// `cpus`: a CPU list for `taskset -c`, which sets the affinity and then execs the server,
    /// so `pid` is the server's and every thread it starts inherits the list.
    init(path serverPath: String, arguments serverArguments: [String], cpus: String? = nil, logPath: String) throws {
        guard FileManager.default.isExecutableFile(atPath: serverPath) else {
            throw LoadTestError.server("--spawn \(serverPath) is not an executable file")
        }
        var path = serverPath
        var arguments = serverArguments
        if let cpus {
            path = Self.taskset
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw LoadTestError.server("--spawn-cpus needs \(path) (util-linux)")
            }
            arguments = ["-c", cpus, serverPath] + serverArguments
        }
        guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
            throw LoadTestError.output("cannot write \(logPath)")
        }
        self.logPath = logPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw LoadTestError.server("cannot start \(path): \(String(cString: strerror(result)))")
        }
        pid = child
    }

    static let taskset = "/usr/bin/taskset"

    var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let reaped = waitpid(pid, &status, WNOHANG)
        guard reaped == pid else { return reaped == 0 }
        exitStatus = Self.decode(status)
        return false
    }

    /// The exit status, or 128 + the signal that ended it (as a shell reports it).
    var terminationStatus: Int32 { lock.withLock { exitStatus ?? -1 } }

    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Polls `GET /health` until it answers 200; throws when the process exits or `seconds` pass.
    func waitUntilHealthy(host: String, port: Int, seconds: Double) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            guard isRunning else {
                throw LoadTestError.server("exited with status \(terminationStatus) before answering /health; "
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

    /// Polls a TCP connect to `host:port` (Janus has no health endpoint on its WebSocket port).
    func waitUntilListening(host: String, port: Int, seconds: Double) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            guard isRunning else {
                throw LoadTestError.server("exited with status \(terminationStatus) before listening; its log: \(logPath)\n\(tail())")
            }
            if HealthCheck.canConnect(host: host, port: port) { return }
            guard Date() < deadline else {
                throw LoadTestError.server("nothing listens on \(host):\(port) after \(Int(seconds)) s; its log: \(logPath)")
            }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
    }

    /// SIGTERM, then SIGKILL after `grace` seconds. Returns the exit status.
    @discardableResult
    func stop(grace: Double = 10) -> Int32 {
        if isRunning {
            kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(grace)
            while isRunning && Date() < deadline { usleep(20_000) }
            if isRunning {
                kill(pid, SIGKILL)
                while isRunning { usleep(10_000) }
            }
        }
        return terminationStatus
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
    /// True when a TCP connection to `host:port` is accepted.
    static func canConnect(host: String, port: Int) -> Bool {
        guard let fd = connected(host: host, port: port) else { return false }
        close(fd)
        return true
    }

    /// A connected TCP socket with 1 s timeouts, or nil; loopback only.
    private static func connected(host: String, port: Int) -> Int32? {
        guard LoopbackURL.isLoopbackIPv4(host), (1...65535).contains(port) else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(fd)
            return nil
        }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// The status code, or nil when nothing answered within a second.
    static func get(host: String, port: Int, path: String = "/health") -> Int? {
        guard let fd = connected(host: host, port: port) else { return nil }
        defer { close(fd) }
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
