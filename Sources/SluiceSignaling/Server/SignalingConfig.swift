import SluiceCalls
import SluiceDataChannel
import SluiceLog

/// Settings of the signaling server (the `server`, `apps` and `limits` parts of the config).
public struct SignalingConfig: Sendable {
    /// An application clients name with `connect`'s `appKey`.
    public struct App: Sendable, Equatable {
        public var key: String
        /// Status callbacks to the app's backend; nil sends none.
        public var hooks: HookSettings?
        /// Caps on publish constraints; a publish or update over them gets 1009.
        public var limits: PublishLimits
        /// Secrets that sign the app's access tokens (HS256); several while one rotates.
        public var secrets: [String]
        /// Refuse `connect` with the app key alone (TOKEN_REQUIRED).
        public var requireToken: Bool
        /// Stop a publisher whose top layer stays over `maxWidth`, `maxHeight` or `maxFps`.
        public var stopWhenExceeded: Bool
        /// The `x-google-start-bitrate` written into publish answers (`StartBitrate`).
        public var startBitrate: StartBitrate
        /// Which publishes are recorded (`AppRecording`).
        public var recording: AppRecording
        /// Data channels' rules; nil: an offer's data channel m-line is refused (port 0).
        public var dataChannels: DataChannelPolicy? = DataChannelPolicy()
        /// The pre-call test's rules; nil: `precall` is refused (1002).
        public var precall: PrecallPolicy? = PrecallPolicy()
        /// `connect`'s `user` names the session's user (docs/protocol.md section 6, "Calls");
        /// without it only a token's `sub` does.
        public var trustClientUser = false
        /// The app's call rules (`apps[].calls`).
        public var calls = AppCallRules()
        /// Its players start from a layer's cached key frame (`apps[].instantJoin`).
        public var instantJoin = true
        /// Its simulcast publishers are told which layers have a taker (`apps[].dynacast`).
        public var dynacast = true
        /// Opus RED is negotiated with its publishers and players that offer it (`apps[].red`).
        public var red = true

        public init(key: String, hooks: HookSettings? = nil, limits: PublishLimits = PublishLimits(),
                    secrets: [String] = [], requireToken: Bool = false, stopWhenExceeded: Bool = false,
                    startBitrate: StartBitrate = .standard, recording: AppRecording = .request) {
            self.key = key
            self.hooks = hooks
            self.limits = limits
            self.secrets = secrets
            self.requireToken = requireToken
            self.stopWhenExceeded = stopWhenExceeded
            self.startBitrate = startBitrate
            self.recording = recording
        }
    }

    /// The interface address to bind; only this one is listened on.
    public var host: String = "127.0.0.1"
    /// 0 lets the kernel pick; `SignalingServer.port` tells which.
    public var port: Int = 8080
    /// HTTPS and WSS on `port` for everything served there; nil serves plain HTTP and WS.
    public var tls: TLSSettings?
    public var apps: [App] = []
    /// Largest WebSocket message, after reassembly (and decompression, were it enabled).
    public var maxMessageBytes: Int = 262_144
    /// Largest HTTP request body a route handler is given.
    public var maxHTTPBodyBytes: Int = 1_048_576
    /// Per session; 0 disables the limit.
    public var requestsPerSecond: Int = 50
    public var maxSessions: Int = 1000
    public var maxHandlesPerSession: Int = 16
    public var serverVersion: String = "0.0.0"
    /// lws pings an idle WebSocket after this many seconds and drops it after twice as
    /// many without traffic; 0 disables keepalive.
    public var pingIntervalSeconds: Int = 0
    public var logLevel: Log.Level = .info
    /// TURN servers whose credentials `connect` hands out (`rtc.turn`); none: `iceServers` is empty.
    public var turnServers: [TURNServer] = []
    /// The `calls` part of the config: ring and reconnect timeouts, the per-session call rate.
    public var calls = CallSettings()

    public init() {}

    public init(host: String = "127.0.0.1", port: Int = 8080, apps: [App], serverVersion: String = "0.0.0") {
        self.host = host
        self.port = port
        self.apps = apps
        self.serverVersion = serverVersion
    }

    func app(withKey key: String) -> App? {
        apps.first { $0.key == key }
    }

    /// Checks the apps' access tokens with their secrets.
    var tokenVerifier: AccessTokenVerifier {
        AccessTokenVerifier(secrets: Dictionary(apps.map { ($0.key, $0.secrets) }, uniquingKeysWith: { a, _ in a }))
    }
}
