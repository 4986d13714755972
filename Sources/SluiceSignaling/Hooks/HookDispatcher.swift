import Foundation
import SluiceJSON
import SluiceLog

/// Builds, signs and sends the hooks of every app that has them. Authorizing hooks go out at
/// once, each on its own; their outcomes queue up here until the service thread takes them
/// (`takeCompletions`), after `wakeup` told it to. Notification hooks go through one
/// sequential queue per app.
// @unchecked: `completions` and `wake` are read and written under `lock` only; the rest is `let`.
public final class HookDispatcher: @unchecked Sendable {
    public let transport: HookTransport
    /// Every POST's outcome by class, for `/metrics`.
    public let outcomes = HookOutcomeCounts()
    private let counted: HookTransport
    private let settings: [String: HookSettings]
    private let queues: [String: HookNotificationQueue]
    private let log: Log
    private let lock = NSLock()
    private var completions: [(token: UInt64, outcome: HookOutcome)] = []
    private var wake: @Sendable () -> Void = {}

    public init(apps: [SignalingConfig.App], transport: HookTransport, log: Log,
                queueCapacity: Int = HookNotificationQueue.defaultCapacity) {
        self.transport = transport
        // Every POST goes through the counting wrapper; `transport` stays the one given.
        let transport = CountingHookTransport(transport, counts: outcomes)
        counted = transport
        self.log = log
        var settings: [String: HookSettings] = [:]
        var queues: [String: HookNotificationQueue] = [:]
        for app in apps {
            guard let hooks = app.hooks else { continue }
            settings[app.key] = hooks
            queues[app.key] = HookNotificationQueue(transport: transport, capacity: queueCapacity, log: log)
            if hooks.secret == nil {
                log.warn("app \(app.key): hooks to \(hooks.url) go unsigned (no hooks.secret)")
            }
        }
        self.settings = settings
        self.queues = queues
    }

    /// Called from any thread when an authorizing hook has an outcome; set by the server
    /// (it wakes the service thread) before any hook is sent.
    public var wakeup: @Sendable () -> Void {
        get { lock.lock(); defer { lock.unlock() }; return wake }
        set { lock.lock(); wake = newValue; lock.unlock() }
    }

    public func hooks(forApp key: String) -> HookSettings? { settings[key] }

    public var hasHooks: Bool { !settings.isEmpty }

    /// The notification queue of an app with hooks.
    public func notificationQueue(forApp key: String) -> HookNotificationQueue? { queues[key] }

    /// Signs `body` and builds the POST of `event` for app `key`; nil when it has no hooks.
    public func request(_ event: HookEvent, app key: String, body: JSONObject) -> HookRequest? {
        guard let hooks = settings[key] else { return nil }
        let bytes = JSONValue.object(body).serializedBytes()
        var headers: [(name: String, value: String)] = []
        if let secret = hooks.secret {
            headers.append((HookSignature.headerName, HookSignature.header(secret: secret, body: bytes)))
        }
        headers.append(("Content-Type", "application/json"))
        return HookRequest(event: event, url: hooks.endpoint(for: event), body: bytes, headers: headers,
                           timeoutMs: hooks.timeoutMs, caFile: hooks.caFile)
    }

    /// Sends an authorizing hook; its outcome comes back through `takeCompletions` under `token`.
    public func authorize(_ request: HookRequest, token: UInt64) {
        counted.post(request) { [self] outcome in
            lock.lock()
            completions.append((token, outcome))
            let wake = self.wake
            lock.unlock()
            wake()
        }
    }

    /// Queues a notification hook of app `key`.
    public func notify(_ request: HookRequest, app key: String) {
        queues[key]?.enqueue(request)
    }

    /// Waits (from any thread) until every notification queue is idle or `timeoutSeconds`
    /// passed; true when all were sent. Shutdown uses it so the last `disconnect` hooks go out.
    @discardableResult
    public func waitForNotifications(timeoutSeconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        while !queues.values.allSatisfy(\.isIdle) {
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }

    /// Outcomes that arrived since the last call, in arrival order. Service thread.
    public func takeCompletions() -> [(token: UInt64, outcome: HookOutcome)] {
        lock.lock()
        defer { lock.unlock() }
        let taken = completions
        completions.removeAll()
        return taken
    }
}
