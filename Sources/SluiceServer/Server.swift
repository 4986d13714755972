import SluiceCallLog
import SluiceCluster
import SluiceControl
import SluiceDataChannel
import SluiceMedia
import SluiceRecord
import SluiceSignaling
import SluiceVocabulary
import SluiceWire
import SluiceLog

/// One running Sluice: the media engine (workers) and the signaling server, wired together.
/// A library type, so tests can start a server in-process.
public final class Server {
    public let config: ServerConfig
    public let media: MediaEngine
    public let signaling: SignalingServer
    public let log: Log
    /// This node's cluster membership when `cluster.redis` is set (docs/cluster.md).
    public let cluster: ClusterMember?
    /// Signaling's view of `cluster`: publish claims and the load figures.
    let clusterNames: ClusterStreamNames?
    /// The audio levels of every node's streams, for speaker followers anywhere.
    var levelExchange: LevelExchange?
    /// Gives the allocator's free pages back (MemoryTrim.swift).
    let memoryTrim = MemoryTrim()
    /// The call log (`calls.database`): an SQLite file or PostgreSQL; nil when it is off.
    let callLog: (any CallLogBackend)?

    public init(config: ServerConfig) throws {
        // Before any socket is bound: credentials Redis refuses will never do, so the node
        // stops with Redis's words and never the password. A Redis that is not up yet is the
        // heartbeat's to wait for.
        if let url = config.cluster?.redis, case .authentication(let why)? = RedisConnection.probe(url) {
            throw ConfigError(key: "cluster.redis", problem: "Redis at \(url) refused this node: \(why)"
                              + (url.password == nil ? " (give the password as redis://user:password@host:port/db)" : ""))
        }
        self.config = config
        let level = Log.Level(name: config.logLevel) ?? .info
        // Every line of a node in a cluster names it, so one log store can hold every node's.
        let log = Log(level: level, subsystem: "server", format: LogFormat(rawValue: config.logFormat) ?? .text,
                      fields: config.cluster.map { [.node($0.nodeId)] } ?? [])
        self.log = log
        guard let bind = SocketAddress(host: config.rtcBindAddress, port: UInt16(config.rtcPort)) else {
            throw ConfigError(key: "rtc.bindAddress", problem: "is not an address")
        }
        var mediaConfig = MediaEngineConfig(
            bindAddress: bind, basePort: UInt16(config.rtcPort), workers: config.workerCount,
            announcedAddresses: config.announcedAddresses,
            iceConsentTimeoutSeconds: config.iceConsentTimeoutSeconds,
            maxStreams: config.maxStreams, maxPlayersPerStream: config.maxPlayersPerStream,
            tcpBasePort: config.tcpPortOrNil.map { UInt16($0) },
            workerLog: log.component("media"))
        mediaConfig.rtpTimeoutSeconds = config.rtpTimeoutSeconds
        mediaConfig.udpSegmentation = config.udpSegmentation
        mediaConfig.srtp = config.srtp
        mediaConfig.recording = config.recording
        let recordingLog = log.component("recording")
        mediaConfig.recorderLog = { line in recordingLog.info(line) }
        let dataLog = log.component("datachannel")
        SCTPStack.shared.setLog { line, handle in dataLog.warn(line, handle.map { [.handle($0)] } ?? []) }
        do {
            media = try MediaEngine(config: mediaConfig)
        } catch let problem as RecordingPaths.Problem {
            throw ConfigError(key: "recording.folder", problem: problem.description)
        }
        var signalingConfig = SignalingConfig(host: config.httpHost, port: config.httpPort,
                                              apps: config.apps.map(Server.signalingApp),
                                              serverVersion: SluiceVersion.string)
        signalingConfig.maxMessageBytes = config.maxMessageBytes
        signalingConfig.requestsPerSecond = config.requestsPerSecond
        signalingConfig.maxSessions = config.maxSessions
        signalingConfig.maxHandlesPerSession = config.maxHandlesPerSession
        signalingConfig.logLevel = level
        signalingConfig.turnServers = config.turnServers
        signalingConfig.calls = config.calls
        if let credentials = try config.loadTLSCredentials() {
            signalingConfig.tls = TLSSettings(credentials: credentials, redirectPort: config.tlsRedirectPort)
        }
        signaling = SignalingServer(config: signalingConfig, media: media, log: log.component("signaling"))
        callLog = try Server.openCallLog(config, log: log.component("calls"))
        signaling.sessions.callLog = callLog
        cluster = config.cluster.map { Server.clusterMember($0, config: config, tls: signalingConfig.tls != nil, log: log) }
        let media = self.media
        clusterNames = cluster.map { ClusterStreamNames(member: $0, workers: config.workerCount, media: media) }
        signaling.sessions.nameRegistry = clusterNames
        if let cluster {
            let clusterLog = log.component("cluster")
            let levels = LevelExchange(member: cluster, log: ClusterLog(info: { clusterLog.info($0) },
                                                                          warn: { clusterLog.warn($0) }))
            Server.connectSpeakers(levels, to: signaling)
            levelExchange = levels
        }
        if let cluster, let secret = config.cluster?.secret {
            media.remoteStreams = ClusterRemoteStreams(member: cluster, secret: secret)
            // Calls across nodes ride the same authenticated channel as relay links.
            signaling.sessions.join(ClusterCalls(member: cluster, secret: secret))
        }
        ClusterCallEndpoint(secret: config.cluster?.secret, sessions: signaling.sessions,
                            log: log.component("cluster")).register(on: signaling.router)
        // A relay link's candidate: the host other nodes reach this one at.
        media.relayHost = config.cluster.flatMap { Server.host(ofRelayAddress: $0.relayAddress) }
        ClusterLinkEndpoint(secret: config.cluster?.secret, nodeID: cluster?.nodeId, media: media,
                            log: log.component("cluster")).register(on: signaling.router)
        AdminAPI(adminToken: config.adminToken, metricsToken: config.metricsToken, media: media, signaling: signaling).register(on: signaling.router)
        AdminCluster(adminToken: config.adminToken, member: cluster, redis: config.cluster?.redis,
                     links: { (media.linkViews, media.edgeLinks) }).register(on: signaling.router)
        let whip = WHIPEndpoint(signaling: signaling)
        whip.register(on: signaling.router)
        let precall = PrecallEndpoint(signaling: signaling)
        precall.register(on: signaling.router)
        AdminCalls(adminToken: config.adminToken, sessions: signaling.sessions).register(on: signaling.router)
        StaticFiles(root: config.webRoot).register(on: signaling.router)
        registerDrain(on: signaling.router)
        let signaling = self.signaling
        let cluster = self.cluster
        AdminTables(adminToken: config.adminToken, sizes: { [weak whip, weak precall] in
            var sizes = signaling.tableSizes.merging(media.tableSizes()) { a, _ in a }
            sizes["whip.resources"] = whip?.resourceCount ?? 0
            sizes["precall.resources"] = precall?.resourceCount ?? 0
            sizes["cluster.claims"] = cluster?.claimedStreams.count ?? 0
            return sizes
        }).register(on: signaling.router)
    }

    /// "10.0.0.5:40000" -> "10.0.0.5"; "[::1]:40000" -> "::1".
    static func host(ofRelayAddress address: String) -> String? {
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<close])
        }
        guard let colon = address.lastIndex(of: ":") else { return address.isEmpty ? nil : address }
        let host = String(address[..<colon])
        return host.isEmpty ? nil : host
    }

    /// The heartbeat thread of `cluster`; it starts with the server and talks to Redis only
    /// from its own thread (or from a caller that claims a stream), never blocking signaling.
    static func clusterMember(_ cluster: ClusterConfig, config: ServerConfig, tls: Bool, log: Log) -> ClusterMember {
        let log = log.component("cluster")
        let scheme = tls ? "wss" : "ws"
        return ClusterMember(settings: ClusterMember.Settings(url: cluster.redis), nodeId: cluster.nodeId,
                             relayAddress: cluster.relayAddress,
                             signalingURL: "\(scheme)://\(config.httpHost):\(config.httpPort)/ws",
                             figures: ClusterMember.Figures(workers: config.workerCount),
                             log: ClusterLog(info: { log.info($0) }, warn: { log.warn($0) }))
    }

    /// An app of the config as signaling sees it: hooks when `hooks.url` is set.
    static func signalingApp(_ app: ServerConfig.App) -> SignalingConfig.App {
        let hooks = app.hooksURL.map { url in
            HookSettings(url: url, secret: app.hooksSecret, timeoutMs: app.hooksTimeoutMs, caFile: app.hooksCAFile)
        }
        var signaling = SignalingConfig.App(key: app.key, hooks: hooks, limits: PublishLimits(
            maxBitrateKbps: app.maxBitrateKbps, maxWidth: app.maxWidth, maxHeight: app.maxHeight, maxFps: app.maxFps),
            secrets: app.secrets, requireToken: app.requireToken, stopWhenExceeded: app.stopWhenExceeded,
            startBitrate: StartBitrate(enabled: app.startBitrateEnabled, defaultKbps: app.startBitrateDefaultKbps),
            recording: app.recording)
        signaling.dataChannels = app.dataChannels
        signaling.precall = app.precall
        signaling.trustClientUser = app.trustClientUser
        signaling.calls = app.calls
        signaling.instantJoin = app.instantJoin
        signaling.dynacast = app.dynacast
        signaling.red = app.red
        return signaling
    }

    public func start() throws {
        try signaling.start()
        let scheme = signaling.config.tls == nil ? ("http", "ws") : ("https", "wss")
        log.info("sluice \(SluiceVersion.string) listening on \(scheme.0)://\(config.httpHost):\(signaling.port) (\(scheme.1): /ws), "
                 + "media on udp \(config.rtcBindAddress):\(media.ports.map(String.init).joined(separator: ","))"
                 + (media.tcpPorts.isEmpty ? " (no tcp)" : " and tcp \(media.tcpPorts.map(String.init).joined(separator: ","))")
                 + ", "
                 + "announcing \(config.announcedAddresses.joined(separator: ","))")
        if cluster != nil && config.cluster?.secret == nil {
            log.warn("cluster.secret is not set: this node neither serves nor asks for relay links, "
                     + "so plays of streams published on other nodes get 1004")
        }
        cluster?.start()
        levelExchange?.start()
        clusterNames?.start(waking: signaling)
        log.info("memory: \(memoryTrim.start())")
    }

    /// SIGHUP: reads `server.tls`'s certificate and key again. When they load and match, new
    /// TLS connections get them and open ones keep theirs; when not, the error is logged and
    /// the old certificate stays. False when nothing was reloaded.
    @discardableResult
    public func reloadTLSCertificate() -> Bool {
        guard signaling.config.tls != nil else {
            log.info("TLS reload: server.tls is not configured; nothing to reload")
            return false
        }
        do {
            guard let credentials = try config.loadTLSCredentials() else { return false }
            if credentials.isExpired { log.warn("TLS reload: the certificate in \(credentials.certificatePath) has expired") }
            return signaling.replaceTLSCredentials(credentials)
        } catch {
            let kept = signaling.tlsCredentials.map { "; keeping \($0.summary)" } ?? ""
            log.error("TLS reload failed: \(error.problem)\(kept)")
            return false
        }
    }

    /// Tells every session DISCONNECTED and every stream UNPUBLISHED, then stops the workers.
    public func shutdown() {
        memoryTrim.stop()
        // First leave the cluster, so other nodes stop sending plays here.
        clusterNames?.stop()
        levelExchange?.stop()
        cluster?.stop()
        signaling.shutdown()
        // After signaling: the calls it ended at shutdown (`unknown`) are in the batch stored now.
        callLog?.close()
        media.shutdown()
        log.info("stopped")
    }
}
