import Foundation
import SluiceClient
import Synchronization
import Testing
@testable import SluiceServer

struct ClientTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A real Sluice server in this process, on 127.0.0.1 with random ports (retried when taken).
final class TestServer {
    static let appKey = "demo"
    /// Signs the app's access tokens.
    static let secret = "the-client-tests-app-secret-32-bytes"
    let server: Server

    /// `workers`: media workers (`rtc.workers`); `configure` sees the config once its ports
    /// are chosen (a cluster node's `relayAddress` names its media port).
    init(workers: Int = 1, configure: (inout ServerConfig) -> Void = { _ in }) throws {
        var lastError: Error?
        for _ in 0..<20 {
            var config = ServerConfig()
            config.httpPort = Int.random(in: 20000...60000)
            config.rtcPort = Int.random(in: 20000...60000)
            config.rtcWorkers = workers
            config.logLevel = "error"
            var app = ServerConfig.App(key: Self.appKey, hooksURL: nil, hooksSecret: nil, hooksTimeoutMs: 5000)
            app.secrets = [Self.secret]
            config.apps = [app]
            configure(&config)
            do {
                let server = try Server(config: config)
                do {
                    try server.start()
                } catch {
                    server.shutdown()
                    throw error
                }
                self.server = server
                return
            } catch {
                lastError = error  // a port in use: try others
            }
        }
        throw lastError ?? ClientTestError("could not start a server")
    }

    var port: Int { server.config.httpPort }

    /// An open session (WebSocket up, `connect` not sent).
    func openSession() async throws -> (SluiceSession, NotificationLog) {
        let session = try SluiceSession(host: "127.0.0.1", port: port).unwrapped("session URL")
        let log = NotificationLog(session)
        try await session.open()
        return (session, log)
    }

    /// A connected session.
    func connectedSession() async throws -> (SluiceSession, NotificationLog) {
        let (session, log) = try await openSession()
        _ = try await session.connect(appKey: Self.appKey)
        return (session, log)
    }

    func shutdown() { server.shutdown() }
}

/// Collects a session's notifications as they come, so a test can wait for one without
/// consuming the others.
final class NotificationLog: Sendable {
    private final class Storage: Sendable {
        let items = Mutex<[SluiceNotification]>([])
    }

    private let storage = Storage()

    init(_ session: SluiceSession) {
        let storage = self.storage
        Task {
            for await notification in session.notifications {
                storage.items.withLock { $0.append(notification) }
            }
        }
    }

    var all: [SluiceNotification] { storage.items.withLock { $0 } }

    /// The first notification matching `predicate`, waiting up to `seconds` (a bound for a
    /// broken run, not a timing assertion).
    func first(within seconds: Double = 10, where predicate: (SluiceNotification) -> Bool) async throws -> SluiceNotification {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let match = all.first(where: predicate) { return match }
            guard Date() < deadline else {
                throw ClientTestError("no matching notification; got \(all)")
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    func streamStatus(handle: String, _ status: StreamStatus) async throws -> StreamStatusUpdate {
        let match = try await first { n in
            if case .streamStatus(let s) = n { return s.handle == handle && s.status == status }
            return false
        }
        guard case .streamStatus(let update) = match else { throw ClientTestError("unreachable") }
        return update
    }

    func closed() async throws -> (code: UInt16?, reason: String) {
        let match = try await first { n in
            if case .closed = n { return true }
            return false
        }
        guard case .closed(let code, let reason) = match else { throw ClientTestError("unreachable") }
        return (code, reason)
    }
}

/// Polls `condition` with a generous bound; tests assert on the outcome, never on time.
func eventually(within seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
}

extension Optional {
    /// The value, or a thrown error (for expressions `#require` cannot take, such as mutating calls).
    func unwrapped(_ what: String = "value") throws -> Wrapped {
        guard let self else { throw ClientTestError("no \(what)") }
        return self
    }
}
