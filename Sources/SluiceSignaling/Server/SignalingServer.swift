import CWebsockets
import Dispatch
import Foundation
import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary
import SluiceWire
import SluiceLog

public enum SignalingServerError: Error, Equatable, CustomStringConvertible {
    case alreadyStarted
    /// lws could not create its context.
    case contextFailed
    /// The listen socket could not be bound (address in use, or not a local address).
    case bindFailed(host: String, port: Int)
    /// libwebsockets made its TLS listener but never handed over the SSL_CTX.
    case tlsSetupFailed

    public var description: String {
        switch self {
        case .alreadyStarted: return "the signaling server was already started"
        case .contextFailed: return "libwebsockets could not create its context"
        case .bindFailed(let host, let port): return "cannot listen on \(host):\(port)"
        case .tlsSetupFailed: return "libwebsockets did not set up TLS on the listener"
        }
    }
}

/// The HTTP and WebSocket server (libwebsockets) with the JSON-RPC sessions behind `/ws`.
///
/// One service thread owns the lws context and every session; route handlers, session
/// code and media-event delivery all run on it. Other threads only call `shutdown()` and
/// the media engine's `wakeup`, both of which merely wake the service thread.
public final class SignalingServer {
    public let config: SignalingConfig
    /// Routes for plain HTTP. `/health` is built in; add routes before `start()`.
    public let router: HTTPRouter
    /// Service thread only (route handlers may use it, e.g. for REST session listings).
    public let sessions: SessionManager
    let media: MediaControl
    let log: Log

    /// The bound port (the kernel's pick when `config.port` is 0); valid after `start()`.
    public private(set) var port: Int = 0
    /// The bound plain-HTTP redirect port (`config.tls.redirectPort`), 0 without one.
    public private(set) var redirectPort: Int = 0
    /// What the HTTPS listener serves; nil without TLS.
    let tlsCertificate: TLSServerCertificate?
    /// The vhost of the redirect port: its requests get `HTTPSRedirect`, nothing else.
    var redirectVhost: OpaquePointer?

    private let waker = ServiceWaker()
    let control = ShutdownControl()
    private let finished = DispatchSemaphore(value: 0)
    private let startMicros = MonotonicClock.nowMicros()
    private var started = false
    private var resources: LWSResources?
    private var serviceContext: OpaquePointer?
    /// Wakes the service thread four times a second for the calls' timeouts (ring, reconnect).
    private var callTimer: DispatchSourceTimer?

    // Service-thread state.
    var webSockets: [OpaquePointer: WebSocketConnection] = [:]
    var exchanges: [OpaquePointer: HTTPExchange] = [:]
    var shutdownBegun = false
    var serviceFinished = false
    /// The drain's progress (SignalingServer+Drain.swift).
    var drainBegun = false
    /// Work queued by `runSoon`.
    private var soon: [() -> Void] = []

    public init(config: SignalingConfig, media: MediaControl, router: HTTPRouter = HTTPRouter(), log: Log? = nil) {
        let log = log ?? Log(level: config.logLevel)
        self.config = config
        self.media = media
        self.router = router
        self.log = log
        self.sessions = SessionManager(config: config, media: media, log: log)
        tlsCertificate = config.tls.map { TLSServerCertificate($0.credentials) }
        if !router.hasRoute("GET", "/health") {
            router.add("GET", "/health") { [weak self] _ in
                guard let self else { return .notFound }
                return self.health()
            }
        }
    }

    public var uptimeSeconds: Int {
        Int((MonotonicClock.nowMicros() - startMicros) / 1_000_000)
    }

    /// The sizes of the service thread's tables and the session layer's (service thread): a
    /// leak test's count, each back to its idle size when nothing is connected.
    public var tableSizes: [String: Int] {
        var sizes = sessions.tableSizes
        sizes["signaling.webSockets"] = webSockets.count
        sizes["signaling.exchanges"] = exchanges.count
        sizes["signaling.soon"] = soon.count
        return sizes
    }

    /// 503 while draining, so that a load balancer sends new clients elsewhere.
    func health() -> HTTPResponse {
        let draining = isDraining
        let body: JSONValue = ["status": draining ? "draining" : "ok", "version": .string(config.serverVersion),
                               "sessions": JSONValue(sessions.connectedSessionCount),
                               "uptimeSeconds": JSONValue(uptimeSeconds)]
        return .json(body, status: draining ? 503 : 200)
    }

    /// Binds the listen socket and starts the service thread. Throws when it cannot listen.
    public func start() throws(SignalingServerError) {
        guard !started else { throw .alreadyStarted }
        started = true
        var lwsLevel = Int32(LLL_ERR | LLL_WARN)
        if log.isEnabled(.debug) { lwsLevel |= Int32(LLL_NOTICE) }
        lws_set_log_level(lwsLevel, nil)

        let resources = LWSResources(config: config)
        var info = lws_context_creation_info()
        info.options = UInt64(LWS_SERVER_OPTION_EXPLICIT_VHOSTS)
        if config.tls != nil { info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) }
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.gid = -1
        info.uid = -1
        guard let context = lws_create_context(&info) else {
            resources.release()
            throw .contextFailed
        }
        let baseOptions = UInt64(LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND)
            | (config.host.contains(":") ? 0 : UInt64(LWS_SERVER_OPTION_DISABLE_IPV6))
        resources.fill(&info)
        info.options = baseOptions
        if config.tls != nil { resources.fillTLS(&info) }
        guard let vhost = lws_create_vhost(context, &info) else {
            lws_context_destroy(context)
            resources.release()
            throw .bindFailed(host: config.host, port: config.port)
        }
        port = Int(lws_get_vhost_listen_port(vhost))
        if let tlsCertificate, !tlsCertificate.isAttached {
            lws_context_destroy(context)
            resources.release()
            throw .tlsSetupFailed
        }
        if let wanted = config.tls?.redirectPort {
            var redirectInfo = lws_context_creation_info()
            resources.fillRedirect(&redirectInfo, port: wanted)
            redirectInfo.options = baseOptions
            guard let redirect = lws_create_vhost(context, &redirectInfo) else {
                lws_context_destroy(context)
                resources.release()
                throw .bindFailed(host: config.host, port: wanted)
            }
            redirectVhost = redirect
            redirectPort = Int(lws_get_vhost_listen_port(redirect))
        }
        self.resources = resources
        waker.set(context)
        let waker = self.waker
        media.wakeup = { waker.wake() }
        sessions.hooks.wakeup = { waker.wake() }
        sessions.wakeup = { waker.wake() }

        serviceContext = context
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250), leeway: .milliseconds(50))
        timer.setEventHandler { waker.wake() }
        timer.resume()
        callTimer = timer
        // From here on the server is its service thread's; this thread only wakes and stops it,
        // through the waker and `ShutdownControl`, which are safe from any thread.
        nonisolated(unsafe) let server = self
        let thread = Thread { server.serve() }
        thread.name = "sluice-signaling"
        thread.stackSize = 8 << 20
        thread.start()
        log.info("listening on \(config.host):\(port)\(tlsCertificate == nil ? "" : " (TLS)")"
                 + (redirectVhost == nil ? "" : ", redirecting http on port \(redirectPort) to https"))
        if let credentials = tlsCertificate?.current {
            log.info("TLS: serving \(credentials.summary)")
            if credentials.isExpired { log.warn("TLS: the certificate in \(credentials.certificatePath) has expired") }
        }
    }

    private func serve() {
        guard let context = serviceContext else { return }
        while !serviceFinished {
            if lws_service(context, 0) < 0 { break }
        }
        callTimer?.cancel()
        callTimer = nil
        waker.set(nil)
        lws_context_destroy(context)
        serviceContext = nil
        resources?.release()
        resources = nil
        log.info("stopped")
        finished.signal()
    }

    /// From any thread: ends every session (their handles end, `session` DISCONNECTED,
    /// close 1001), lets the queued frames go out, stops the service thread and returns.
    /// Waits at most about `timeoutSeconds` for clients to take their close frames.
    public func shutdown(timeoutSeconds: Double = 2) {
        guard started, control.requestShutdown() else { return }
        let deadline = MonotonicClock.nowMicros() + UInt64(max(0, timeoutSeconds) * 1_000_000)
        let giveUp = deadline + 1_000_000
        // Wakes the service thread every 20 ms to check progress and the deadline.
        while finished.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
            let now = MonotonicClock.nowMicros()
            if now >= deadline { control.forceStop() }
            if now >= giveUp {
                log.error("service thread did not stop in time")
                return
            }
            waker.wake()
        }
        // The sessions' last hooks (statuses, `disconnect`), briefly: a dead backend cannot hold shutdown up.
        if sessions.hooks.hasHooks && !sessions.hooks.waitForNotifications(timeoutSeconds: 1) {
            log.warn("hooks: shutdown left notifications unsent")
        }
    }

    /// From any thread: new TLS connections get `credentials` from the service thread's next
    /// wake on; open connections keep theirs. False when the server has no TLS.
    @discardableResult
    public func replaceTLSCredentials(_ credentials: TLSCredentials) -> Bool {
        guard let tlsCertificate else { return false }
        tlsCertificate.offer(credentials)
        waker.wake()
        return true
    }

    /// From any thread: wakes the service thread, which then does its periodic work (the
    /// cluster's load figures). For a timer of the server's; a no-op before `start()`.
    public func wake() { waker.wake() }

    /// `wake`, for other threads to keep and call: it holds only the waker, which is safe from
    /// any thread, not the server.
    public var wakeFromAnyThread: @Sendable () -> Void { { [waker] in waker.wake() } }

    /// The credentials new TLS connections get (or are about to), nil without TLS.
    public var tlsCredentials: TLSCredentials? { tlsCertificate?.latest }

    /// Service thread: runs `task` at the next wake, after hook verdicts and media events.
    /// For work that must not run inside the current call, such as ending a session that
    /// noticed its own end while the session manager was delivering to it.
    public func runSoon(_ task: @escaping () -> Void) {
        soon.append(task)
        waker.wake()
    }

    /// On the service thread after `lws_cancel_service`: hook verdicts, media events, work
    /// queued by `runSoon`, then shutdown steps.
    func serviceWoke() {
        if let adopted = tlsCertificate?.adoptPending() {
            log.info("TLS: reloaded; new connections get \(adopted.summary)")
        }
        sessions.drainHookCompletions()
        sessions.drainMediaEvents()
        sessions.callTick()
        sessions.reportFigures()
        if !soon.isEmpty {
            let tasks = soon
            soon.removeAll()
            for task in tasks { task() }
        }
        let flags = control.flags
        drainStep(flags)
        if flags.shutdownRequested && !shutdownBegun {
            shutdownBegun = true
            log.info("shutting down: \(sessions.connectedSessionCount) sessions")
            sessions.shutdown()
        }
        if shutdownBegun && (webSockets.isEmpty || flags.forceStop) {
            serviceFinished = true
        }
    }
}

/// Wakes the service thread from any thread, and never after the context is gone.
// @unchecked: `context` is read and written under `lock` only.
final class ServiceWaker: @unchecked Sendable {
    private let lock = NSLock()
    private var context: OpaquePointer?

    func set(_ context: OpaquePointer?) {
        lock.lock()
        self.context = context
        lock.unlock()
    }

    func wake() {
        lock.lock()
        if let context { lws_cancel_service(context) }
        lock.unlock()
    }
}

/// Shutdown flags set by other threads and read by the service thread.
// @unchecked: `flags` is read and written under `lock` only.
final class ShutdownControl: @unchecked Sendable {
    struct Flags {
        var shutdownRequested = false
        var forceStop = false
        /// A drain asked for by another thread: its deadline (monotonic µs) and where else to go.
        var drain: (deadlineMicros: UInt64, servers: [String])?
        /// The service thread saw the last session end, or the deadline pass.
        var drained = false
    }

    private let lock = NSLock()
    private var state = Flags()

    var flags: Flags {
        lock.lock()
        defer { lock.unlock() }
        return state
    }

    /// False when a shutdown was already requested.
    func requestShutdown() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if state.shutdownRequested { return false }
        state.shutdownRequested = true
        return true
    }

    func forceStop() {
        lock.lock()
        state.forceStop = true
        lock.unlock()
    }

    /// False when a drain was already requested.
    func requestDrain(deadlineMicros: UInt64, servers: [String]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if state.drain != nil { return false }
        state.drain = (deadlineMicros, servers)
        return true
    }

    func markDrained() {
        lock.lock()
        state.drained = true
        lock.unlock()
    }
}
