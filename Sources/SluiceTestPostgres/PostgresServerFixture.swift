import CLibPQ
import Foundation
import Synchronization

/// A real PostgreSQL 15 (Debian's `postgresql-15`) for the tests: `initdb` in a temporary
/// folder, `postgres` on 127.0.0.1 and a free port, password authentication over TCP, fsync
/// off (the tests need no durability against power loss), stopped at the end of the process.
/// PostgreSQL refuses to run as root, and CI runs as root: then both run as Debian's
/// `postgres` user (or `sluicepg`, made here, where that user does not exist), through
/// `setpriv`. Not installed is a failure that says how to install it, never a skip:
/// scripts/install-deps.sh --test installs it.
public final class PostgresServerFixture: Sendable {
    public static let binaries = "/usr/lib/postgresql/15/bin"
    /// The superuser initdb makes, and its password (every URL of the tests carries it, so the
    /// tests can check that no message shows it).
    public static let user = "sluice"
    public static let password = "pg-Secret-4711-test"

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// One server for the whole test process; tests that stop it start their own.
    public static let shared: Result<PostgresServerFixture, Failure> = Result { () throws(Failure) in try PostgresServerFixture() }

    public let port: Int
    public let folder: URL
    private var dataFolder: URL { folder.appendingPathComponent("data") }
    private var logFile: URL { folder.appendingPathComponent("postgres.log") }
    /// The OS user that runs PostgreSQL when the tests run as root.
    private let owner: (name: String, uid: uid_t, gid: gid_t)?
    /// The running `postgres`, nil while stopped. `start` and `stop` hold the lock throughout,
    /// so that they never overlap.
    private let process = Mutex<Process?>(nil)

    public init() throws(Failure) {
        guard FileManager.default.isExecutableFile(atPath: "\(Self.binaries)/postgres") else {
            throw Failure(description: "PostgreSQL 15 is not installed (\(Self.binaries)/postgres is missing): "
                          + "apt-get install postgresql, or scripts/install-deps.sh --test")
        }
        owner = geteuid() == 0 ? try Self.unprivilegedUser() : nil
        Self.reapOrphans
        port = Self.freePort()
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("sluice-pg-\(getpid())-\(port)-\(UInt32.random(in: 0...UInt32.max))")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let passwordFile = folder.appendingPathComponent("password")
            try Data(Self.password.utf8).write(to: passwordFile)
            if let owner {
                chown(folder.path, owner.uid, owner.gid)
                chown(passwordFile.path, owner.uid, owner.gid)
            }
            try run(["\(Self.binaries)/initdb", "-D", dataFolder.path, "-U", Self.user, "--pwfile", passwordFile.path,
                     "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync", "--locale=C", "-E", "UTF8",
                     "--no-instructions"])
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "preparing \(folder.path) for PostgreSQL: \(error)")
        }
        try start()
        Self.register(self)
    }

    /// A URL of the database `database`, with `password` (the right one unless told).
    public func url(database: String = "postgres", password: String = PostgresServerFixture.password) -> String {
        "postgresql://\(Self.user):\(password)@127.0.0.1:\(port)/\(database)"
    }

    /// A new, empty database: each test gets its own, so tests on the shared server do not meet.
    public func createDatabase() throws -> String {
        let name = "calls_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20))"
        _ = try sql(url(), "CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Starts `postgres` on the data folder and waits until it accepts connections.
    public func start() throws(Failure) {
        try process.withLock { (process) throws(Failure) in
            try start(into: &process)
        }
    }

    /// `start`'s work, under the lock: `process` is what the mutex holds. It keeps the
    /// started process even when it then fails to answer, as before, so `stop` ends it.
    private func start(into process: inout Process?) throws(Failure) {
        guard process == nil else { return }
        let log: FileHandle
        do {
            if !FileManager.default.fileExists(atPath: logFile.path) {
                _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
            }
            log = try FileHandle(forWritingTo: logFile)
            log.seekToEndOfFile()
        } catch {
            throw Failure(description: "cannot write \(logFile.path): \(error)")
        }
        let started = Process()
        let command = ["\(Self.binaries)/postgres", "-D", dataFolder.path, "-p", String(port),
                       "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=\(folder.path)",
                       "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                       "-c", "max_connections=200"]
        (started.executableURL, started.arguments) = privileged(command)
        started.currentDirectoryURL = folder
        started.standardOutput = log
        started.standardError = log
        do { try started.run() } catch { throw Failure(description: "cannot run postgres: \(error)") }
        process = started
        let probe = "host=127.0.0.1 port=\(port) dbname=postgres connect_timeout=2"
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if PQping(probe) == PQPING_OK { return }
            guard started.isRunning else { break }
            usleep(20_000)
        }
        throw Failure(description: "postgres did not accept connections on 127.0.0.1:\(port); its log:\n\(logTail())")
    }

    /// A fast shutdown (SIGINT): open connections are cut, as in a restart.
    public func stop() {
        process.withLock { process in
            guard let running = process else { return }
            if running.isRunning {
                kill(running.processIdentifier, SIGINT)
                running.waitUntilExit()
            }
            process = nil
        }
    }

    /// Stops it and removes its folder.
    public func remove() {
        stop()
        try? FileManager.default.removeItem(at: folder)
        Self.unregister(self)
    }

    deinit { remove() }

    public func logTail(lines: Int = 20) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    // MARK: Running as another user

    private func privileged(_ command: [String]) -> (URL, [String]) {
        guard let owner else { return (URL(fileURLWithPath: command[0]), Array(command.dropFirst())) }
        // setpriv execs the command in place: the process we hold is PostgreSQL itself.
        return (URL(fileURLWithPath: "/usr/bin/setpriv"),
                ["--reuid=\(owner.uid)", "--regid=\(owner.gid)", "--clear-groups", "--"] + command)
    }

    private func run(_ command: [String]) throws {
        let process = Process()
        (process.executableURL, process.arguments) = privileged(command)
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(command[0]) failed (\(process.terminationStatus)): \(text)")
        }
    }

    /// Debian's `postgres` user, or `sluicepg`, made now if missing.
    private static func unprivilegedUser() throws(Failure) -> (name: String, uid: uid_t, gid: gid_t) {
        for name in ["postgres", "sluicepg"] {
            if let entry = getpwnam(name) { return (name, entry.pointee.pw_uid, entry.pointee.pw_gid) }
        }
        let useradd = Process()
        useradd.executableURL = URL(fileURLWithPath: "/usr/sbin/useradd")
        useradd.arguments = ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "sluicepg"]
        try? useradd.run()
        useradd.waitUntilExit()
        guard let entry = getpwnam("sluicepg") else {
            throw Failure(description: "PostgreSQL refuses to run as root, and no user could be made for it (useradd sluicepg)")
        }
        return ("sluicepg", entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    // MARK: Stopped with the process

    private static let running = Mutex<[ObjectIdentifier: PostgresServerFixture]>([:])

    private static func register(_ fixture: PostgresServerFixture) {
        running.withLock { running in
            if running.isEmpty { atexit { PostgresServerFixture.stopAll() } }
            running[ObjectIdentifier(fixture)] = fixture
        }
    }

    private static func unregister(_ fixture: PostgresServerFixture) {
        running.withLock { $0[ObjectIdentifier(fixture)] = nil }
    }

    /// At exit: the shared server lives as long as the process, and must not outlive it.
    private static func stopAll() {
        let all = running.withLock { Array($0.values) }
        all.forEach { $0.stop(); try? FileManager.default.removeItem(at: $0.folder) }
    }

    /// Servers left by a test process that crashed (atexit never ran): stopped and removed,
    /// once per process. Their folder names carry the pid of the process that made them.
    private static let reapOrphans: Void = {
        let temporary = FileManager.default.temporaryDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix("sluice-pg-") {
            let parts = name.split(separator: "-")
            guard parts.count >= 3, let owner = Int32(parts[2]), owner != getpid(), kill(owner, 0) != 0 else { continue }
            let folder = temporary.appendingPathComponent(name)
            let pidFile = folder.appendingPathComponent("data/postmaster.pid").path
            if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
               let line = text.split(separator: "\n").first, let pid = Int32(line) {
                kill(pid, SIGQUIT)
                usleep(200_000)
            }
            try? FileManager.default.removeItem(at: folder)
        }
    }()

    private static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Runs `statement` on `url` through libpq itself (not through the log): its rows, as text.
public func sql(_ url: String, _ statement: String) throws -> [[String?]] {
    let connection = PQconnectdb(url)
    defer { PQfinish(connection) }
    guard PQstatus(connection) == CONNECTION_OK else {
        throw PostgresServerFixture.Failure(description: String(cString: PQerrorMessage(connection)))
    }
    let result = PQexec(connection, statement)
    defer { PQclear(result) }
    let status = PQresultStatus(result)
    guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
        throw PostgresServerFixture.Failure(description: String(cString: PQresultErrorMessage(result)))
    }
    return (0..<PQntuples(result)).map { row in
        (0..<PQnfields(result)).map { column in
            PQgetisnull(result, row, column) != 0 ? nil : String(cString: PQgetvalue(result, row, column))
        }
    }
}
