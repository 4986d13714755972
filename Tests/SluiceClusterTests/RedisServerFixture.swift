import Foundation
import SluiceCluster
import XCTest

/// A real redis-server on 127.0.0.1 for one test: a free port, no persistence (`--save ""
/// --appendonly no`), its own temp dir; killed (SIGKILL) when the test is done. `restart()`
/// starts a new, empty one on the same port.
final class RedisServerFixture {
    static let binary = "/usr/bin/redis-server"
    let port: Int
    let directory: URL
    /// `requirepass`: clients must AUTH with it (`url` carries it).
    let password: String?
    private var process: Process?

    /// Skips the test (not fails) only when redis-server is not installed; CI installs it
    /// (scripts/install-deps.sh --test).
    static func start(port: Int? = nil, password: String? = nil) throws -> RedisServerFixture {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw XCTSkip("\(binary) is not installed (apt-get install redis-server, or scripts/install-deps.sh --test)")
        }
        let fixture = try RedisServerFixture(port: port ?? freePort(), password: password)
        try fixture.launch()
        return fixture
    }

    private init(port: Int, password: String?) throws {
        self.port = port
        self.password = password
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-redis-\(getpid())-\(port)-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var url: RedisURL { RedisURL(host: "127.0.0.1", port: port, password: password) }

    func connection() -> RedisConnection { RedisConnection(url: url, connectTimeoutMs: 500, commandTimeoutMs: 1000) }

    private func launch() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no",
                             "--dir", directory.path, "--daemonize", "no", "--loglevel", "warning", "--protected-mode", "yes"]
            + (password.map { ["--requirepass", $0] } ?? [])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        // Ready when it answers PING (a few hundred ms at most; 10 s is only a bound).
        let probe = connection()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? probe.command(["PING"])) == .status("PONG") { return }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        kill()
        throw XCTSkip("redis-server did not answer on 127.0.0.1:\(port)")
    }

    /// SIGKILL: Redis gets no chance to say goodbye, as when its host dies.
    func kill() {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// A new, empty redis-server on the same port.
    func restart() throws {
        kill()
        try launch()
    }

    func stop() {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// A port the kernel just gave out and took back: free unless something grabs it at once.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw XCTSkip("no socket for a free port") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bind(fd, sa, length) == 0 && getsockname(fd, sa, &length) == 0
            }
        }
        guard bound else { throw XCTSkip("cannot bind a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Polls until `condition` holds or `seconds` pass (a bound for waiting, never a measurement).
func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
