import Foundation
import SluiceCalls
import SluiceDataChannel
import SluiceJSON
import SluiceRecord
import SluiceJSONParser
import SluiceSignaling
import SluiceTransport
import SluiceWire

/// The server's configuration (conf/sluice.json). Every key is documented in docs/config.md.
public struct ServerConfig: Sendable {
    public struct App: Sendable, Equatable {
        public var key: String
        public var hooksURL: String?
        public var hooksSecret: String?
        public var hooksTimeoutMs: Int
        /// PEM CA certificates an `https://` hooks URL is verified against instead of the system's.
        public var hooksCAFile: String? = nil
        /// Publish caps (kbit/s, pixels, frames per second); nil: no cap.
        public var maxBitrateKbps: Int? = nil
        public var maxWidth: Int? = nil
        public var maxHeight: Int? = nil
        public var maxFps: Int? = nil
        /// `limits.stopWhenExceeded`: stop a publisher that stays over a size or rate cap.
        public var stopWhenExceeded = false
        /// Secrets that sign the app's access tokens (HS256); the first signs `sluice token create`.
        public var secrets: [String] = []
        /// Refuse `connect` with the app key alone.
        public var requireToken = false
        /// `startBitrate`: the `x-google-start-bitrate` of publish answers (on; no default kbit/s).
        public var startBitrateEnabled = true
        public var startBitrateDefaultKbps: Int? = nil
        /// `instantJoin`: its players start from the layer's cached key frame (on).
        public var instantJoin = true
        /// `dynacast`: its simulcast publishers are told which layers have a taker (on).
        public var dynacast = true
        /// `red`: Opus RED (RFC 2198) is negotiated with publishers and players that offer it (on).
        public var red = true
        /// `recording`: which publishes are recorded (`request`, `always`, `off`).
        public var recording = AppRecording.request
        /// `dataChannels`: their rules (`ServerConfig+DataChannels.swift`); nil: refused.
        public var dataChannels: DataChannelPolicy? = DataChannelPolicy()
        /// `precall`: the pre-call test's rules (`ServerConfig+Precall.swift`); nil: refused.
        public var precall: PrecallPolicy? = PrecallPolicy()
        /// `trustClientUser`: `connect`'s `user` names the session's user (`ServerConfig+Calls.swift`).
        public var trustClientUser = false
        /// `calls`: the app's call rules.
        public var calls = AppCallRules()
    }

    public var httpHost = "127.0.0.1"
    public var httpPort = 8080
    /// The browser demo and SDK served at `/`; relative paths are from the working directory.
    public var webRoot = "web"
    /// `server.tls`: PEM certificate (chain) and key files that turn on HTTPS and WSS on
    /// `httpPort`; both or neither. Checked when the config loads (`loadTLSCredentials`).
    public var tlsCertificatePath: String?
    public var tlsPrivateKeyPath: String?
    /// A plain-HTTP port that only redirects to HTTPS; nil: none.
    public var tlsRedirectPort: Int?
    public var rtcBindAddress = "127.0.0.1"
    public var rtcPort = 10000
    /// ICE-TCP: first worker's TCP media port (worker i uses tcpPort + i); nil: the same
    /// numbers as `rtcPort` (TCP and UDP ports are separate); 0: no TCP.
    public var rtcTCPPort: Int?
    /// 0 means one worker per core.
    public var rtcWorkers = 0
    public var announcedAddresses = ["127.0.0.1"]
    public var iceConsentTimeoutSeconds = 10
    /// `rtc.rtpTimeoutSeconds`: a publisher with no media for this long fails; 0: off.
    public var rtpTimeoutSeconds = 10
    /// `rtc.gso`: datagrams to one player leave in UDP GSO messages (Linux UDP_SEGMENT).
    public var udpSegmentation = true
    /// `rtc.srtp` (what runs SRTP: OpenSSL or libsrtp) and `rtc.srtpProfiles` (the DTLS-SRTP
    /// profiles offered, in order of preference).
    public var srtp = SRTPConfiguration()
    /// `rtc.turn`: TURN servers (coturn with use-auth-secret) whose credentials `connect` hands out.
    public var turnServers: [TURNServer] = []
    public var apps: [App] = [App(key: "defaultApp", hooksURL: nil, hooksSecret: nil, hooksTimeoutMs: 5000)]
    public var adminToken = ""
    /// Bearer token `/metrics` requires; empty: none.
    public var metricsToken = ""
    public var logLevel = "info"
    /// `log.format`: "text" (a line a human reads) or "json" (an object a line, for journald,
    /// Loki or ELK; docs/config.md).
    public var logFormat = "text"
    /// `server.drainSeconds`: how long a drain (SIGTERM, `POST /api/v1/drain`) lets running
    /// sessions go on before the server closes them and stops.
    public var drainSeconds = 30
    public var maxMessageBytes = 262_144
    public var requestsPerSecond = 50
    public var maxSessions = 1000
    public var maxHandlesPerSession = 16
    public var maxStreams = 1000
    public var maxPlayersPerStream = 500
    /// `cluster`: the origin/edge cluster on Redis (docs/cluster.md); nil: a single node.
    public var cluster: ClusterConfig?
    /// `recording`: where recordings go (docs/recording.md, "Using it"); nil: recording is off.
    public var recording: RecordingSettings?
    /// `calls`: ring and reconnect timeouts, the per-session call rate.
    public var calls = CallSettings()
    /// `calls.database`: the call log's SQLite file, or a PostgreSQL URL ("" keeps no log;
    /// `callLogLocation`). A config file gets "calls.db" beside it by default; one built in
    /// code (tests) keeps none.
    public var callDatabase = ""
    /// The file this config was read from (relative paths in it start there); nil when built in code.
    public var sourcePath: String?

    public init() {}

    public static func load(path: String) throws(ConfigError) -> ServerConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(key: "", problem: "cannot read \(path)")
        }
        let root: JSONValue
        do {
            root = try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue in
                try JSONValue.parse(raw)
            }
        } catch {
            throw ConfigError(key: "", problem: "\(path) is not valid JSON: \(error)")
        }
        var config = try parse(root)
        config.sourcePath = path
        // The files are part of the config: a bad one fails `--check-config` as well.
        _ = try config.loadTLSCredentials()
        try config.checkHookCAFiles()
        return config
    }

    public static func parse(_ root: JSONValue) throws(ConfigError) -> ServerConfig {
        var config = ServerConfig()
        let top = try ConfigReader(root, path: "", known: ["server", "rtc", "apps", "admin", "metrics", "log", "limits", "cluster",
                                                               "recording", "calls"])

        let server = try top.child("server", known: ["host", "port", "webRoot", "tls", "drainSeconds"])
        config.drainSeconds = try server.int("drainSeconds", default: config.drainSeconds, range: 0...86_400)
        config.httpHost = try server.string("host", default: config.httpHost)
        try requireAddress(config.httpHost, key: "server.host")
        config.httpPort = try server.int("port", default: config.httpPort, range: 1...65535)
        config.webRoot = try server.string("webRoot", default: config.webRoot)
        if config.webRoot.isEmpty {
            // "" would serve the whole working directory.
            throw ConfigError(key: "server.webRoot", problem: "must be a non-empty path")
        }
        try parseTLS(try server.child("tls", known: ["certificate", "privateKey", "redirectPort"]), into: &config)

        let rtc = try top.child("rtc", known: ["bindAddress", "port", "tcpPort", "workers", "announcedAddresses",
                                               "iceConsentTimeoutSeconds", "rtpTimeoutSeconds", "gso", "turn", "srtp",
                                               "srtpProfiles"])
        config.rtcBindAddress = try rtc.string("bindAddress", default: config.rtcBindAddress)
        try requireAddress(config.rtcBindAddress, key: "rtc.bindAddress")
        config.rtcPort = try rtc.int("port", default: config.rtcPort, range: 1...65535)
        config.rtcWorkers = try rtc.int("workers", default: config.rtcWorkers, range: 0...64)
        config.announcedAddresses = try rtc.strings("announcedAddresses", default: config.announcedAddresses)
        if config.announcedAddresses.isEmpty {
            throw ConfigError(key: "rtc.announcedAddresses", problem: "must list at least one address")
        }
        for (i, address) in config.announcedAddresses.enumerated() {
            try requireAddress(address, key: "rtc.announcedAddresses[\(i)]")
        }
        config.iceConsentTimeoutSeconds = try rtc.int("iceConsentTimeoutSeconds", default: config.iceConsentTimeoutSeconds, range: 1...300)
        config.rtpTimeoutSeconds = try rtc.int("rtpTimeoutSeconds", default: config.rtpTimeoutSeconds, range: 0...3600)
        config.udpSegmentation = try rtc.bool("gso", default: config.udpSegmentation)
        try readSRTP(rtc, into: &config)
        if let turn = rtc.object["turn"] { config.turnServers = try TURNConfig.parse(turn, key: "rtc.turn") }
        if config.rtcPort + max(config.rtcWorkers, 1) - 1 > 65535 {
            throw ConfigError(key: "rtc.port", problem: "leaves no room for one port per worker")
        }
        if rtc.object["tcpPort"] != nil {
            config.rtcTCPPort = try rtc.int("tcpPort", default: 0, range: 0...65535)
        }
        if let tcp = config.tcpPortOrNil {
            if tcp + max(config.rtcWorkers, 1) - 1 > 65535 {
                throw ConfigError(key: "rtc.tcpPort", problem: "leaves no room for one port per worker")
            }
            // The media TCP ports and the HTTP port share TCP's namespace.
            let sameHost = config.rtcBindAddress == config.httpHost || [config.rtcBindAddress, config.httpHost]
                .contains { $0 == "0.0.0.0" || $0 == "::" }
            if sameHost, (tcp...(tcp + config.workerCount - 1)).contains(config.httpPort) {
                let unset = config.rtcTCPPort == nil ? "(rtc.port, as it is not set) " : ""
                throw ConfigError(key: "rtc.tcpPort", problem: "\(unset)gives TCP ports \(tcp)-\(tcp + config.workerCount - 1), "
                                  + "one per worker, which include server.port \(config.httpPort); move one, or set rtc.tcpPort to 0")
            }
        }

        if let appsValue = top.object["apps"] {
            guard let array = appsValue.arrayValue, !array.isEmpty else {
                throw ConfigError(key: "apps", problem: "must be a non-empty array of apps")
            }
            var apps: [App] = []
            for (i, item) in array.enumerated() {
                let app = try ConfigReader(item, path: "apps[\(i)]", known: ["key", "hooks", "limits", "secrets", "requireToken", "startBitrate",
                                                                                "recording", "dataChannels", "precall", "trustClientUser",
                                                                                "calls", "instantJoin", "dynacast", "red"])
                guard let key = app.object["key"]?.stringValue, !key.isEmpty else {
                    throw ConfigError(key: "apps[\(i)].key", problem: "is required and must be a non-empty string")
                }
                if apps.contains(where: { $0.key == key }) {
                    throw ConfigError(key: "apps[\(i)].key", problem: "repeats the app key \"\(key)\"")
                }
                let hooks = try app.child("hooks", known: ["url", "secret", "timeoutMs", "caFile"])
                let url = hooks.object["url"] == nil ? nil : try hooks.string("url", default: "")
                let secret = hooks.object["secret"] == nil ? nil : try hooks.string("secret", default: "")
                if let url, !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
                    throw ConfigError(key: "apps[\(i)].hooks.url", problem: "must be an http:// or https:// URL")
                }
                var entry = App(key: key, hooksURL: url, hooksSecret: secret,
                                hooksTimeoutMs: try hooks.int("timeoutMs", default: 5000, range: 100...60000))
                entry.hooksCAFile = try optionalPath(hooks, "caFile")
                let limits = try app.child("limits", known: ["maxBitrateKbps", "maxWidth", "maxHeight", "maxFps", "stopWhenExceeded"])
                func cap(_ name: String, _ range: ClosedRange<Int>) throws(ConfigError) -> Int? {
                    limits.object[name] == nil ? nil : try limits.int(name, default: 0, range: range)
                }
                entry.maxBitrateKbps = try cap("maxBitrateKbps", 1...10_000_000)
                entry.maxWidth = try cap("maxWidth", 1...16384)
                entry.maxHeight = try cap("maxHeight", 1...16384)
                entry.maxFps = try cap("maxFps", 1...1000)
                entry.stopWhenExceeded = try limits.bool("stopWhenExceeded", default: false)
                entry.secrets = try app.strings("secrets", default: [])
                for (j, secret) in entry.secrets.enumerated() where secret.utf8.count < 32 {
                    // HS256 keys shorter than the hash (RFC 7518 3.2) are guessable offline.
                    throw ConfigError(key: "apps[\(i)].secrets[\(j)]", problem: "must be at least 32 bytes long, not \(secret.utf8.count)")
                }
                entry.requireToken = try app.bool("requireToken", default: false)
                if entry.requireToken && entry.secrets.isEmpty {
                    throw ConfigError(key: "apps[\(i)].requireToken", problem: "needs at least one secret in apps[\(i)].secrets to check tokens with")
                }
                try readStartBitrate(app, into: &entry)
                try readDataChannels(app, into: &entry)
                try readPrecall(app, into: &entry)
                try readAppCalls(app, into: &entry)
                entry.instantJoin = try app.bool("instantJoin", default: true)
                entry.dynacast = try app.bool("dynacast", default: true)
                entry.red = try app.bool("red", default: true)
                let recording = try app.string("recording", default: AppRecording.request.rawValue,
                                               allowed: Set(AppRecording.allCases.map(\.rawValue)))
                entry.recording = AppRecording(rawValue: recording) ?? .request
                apps.append(entry)
            }
            config.apps = apps
        }

        let admin = try top.child("admin", known: ["token"])
        config.adminToken = try admin.string("token", default: config.adminToken)
        let metrics = try top.child("metrics", known: ["token"])
        config.metricsToken = try metrics.string("token", default: config.metricsToken)

        let log = try top.child("log", known: ["level", "format"])
        config.logLevel = try log.string("level", default: config.logLevel, allowed: ["debug", "info", "warn", "error"])
        config.logFormat = try log.string("format", default: config.logFormat, allowed: ["text", "json"])

        let limits = try top.child("limits", known: ["maxMessageBytes", "requestsPerSecond", "maxSessions",
                                                     "maxHandlesPerSession", "maxStreams", "maxPlayersPerStream"])
        config.maxMessageBytes = try limits.int("maxMessageBytes", default: config.maxMessageBytes, range: 1024...16_777_216)
        config.requestsPerSecond = try limits.int("requestsPerSecond", default: config.requestsPerSecond, range: 1...100_000)
        config.maxSessions = try limits.int("maxSessions", default: config.maxSessions, range: 1...1_000_000)
        config.maxHandlesPerSession = try limits.int("maxHandlesPerSession", default: config.maxHandlesPerSession, range: 1...10_000)
        config.maxStreams = try limits.int("maxStreams", default: config.maxStreams, range: 1...1_000_000)
        config.maxPlayersPerStream = try limits.int("maxPlayersPerStream", default: config.maxPlayersPerStream, range: 1...100_000)
        if let cluster = top.object["cluster"] {
            config.cluster = try ClusterConfig.parse(cluster, key: "cluster", httpPort: config.httpPort, rtcPort: config.rtcPort)
        }
        try readCalls(top, into: &config)
        if let recording = top.object["recording"] {
            config.recording = try RecordingConfig.parse(recording, key: "recording")
        }
        if config.recording == nil, let i = config.apps.firstIndex(where: { $0.recording == .always }) {
            throw ConfigError(key: "apps[\(i)].recording",
                              problem: "is \"always\", which needs recording.folder: the folder recordings go to")
        }
        return config
    }

    private static func requireAddress(_ text: String, key: String) throws(ConfigError) {
        guard SocketAddress(host: text, port: 0) != nil else {
            throw ConfigError(key: key, problem: "must be an IPv4 or IPv6 address, not \"\(text)\"")
        }
    }

    /// The first ICE-TCP port, or nil when TCP is off (`rtc.tcpPort: 0`).
    public var tcpPortOrNil: Int? {
        let port = rtcTCPPort ?? rtcPort
        return port == 0 ? nil : port
    }

    /// Workers to start: the configured count, or one per core.
    public var workerCount: Int {
        rtcWorkers > 0 ? rtcWorkers : max(1, ProcessInfo.processInfo.activeProcessorCount)
    }
}
