// The vocabulary shared by the control plane (signaling, REST) and the media engine.
// Plain values only: the media core knows no JSON and no HTTP.

/// A signaling session, as the engine sees it.
public typealias SessionID = String

/// An opaque publish or play handle chosen by the server.
public typealias StreamHandle = String

public enum StreamRole: String, Sendable {
    case publish
    case play
}

public enum StreamStatus: String, Sendable {
    case pending = "PENDING"
    case publishing = "PUBLISHING"
    case playing = "PLAYING"
    case stopped = "STOPPED"
    case unpublished = "UNPUBLISHED"
    case failed = "FAILED"

    /// Whether a handle ends with this status (and signaling forgets it).
    /// UNPUBLISHED on a `wait: true` play does not end it: see `MediaEvent.streamStatus.ends`.
    public var isTerminal: Bool {
        switch self {
        case .stopped, .failed, .unpublished: return true
        default: return false
        }
    }
}

/// Exact WCS-compatible `info` strings (docs/protocol.md section 1).
public enum StatusInfo {
    public static let streamNameInUse = "Stream name is already in use"
    public static let streamNotFound = "Stream not found"
    public static let noCommonCodecs = "No common codecs"
    public static let iceTimeout = "Failed by ICE timeout"
    public static let dtlsError = "Failed by DTLS error"
    public static let dtlsFingerprint = "Failed by DTLS fingerprint error"
    public static let rtpActivity = "Failed by RTP activity"
    public static let sessionDisconnect = "Stopped by session disconnect"
    public static let publisherStop = "Stopped by publisher stop"
    public static let user = "Stopped by user"
    public static let restTerminate = "Stopped by rest /terminate"
    public static let restrictedAccess = "Restricted access"
    public static let constraintsExceedLimits = "Constraints exceed limits"
    /// A publisher stopped for staying over a cap: "Failed by limit maxWidth".
    public static func limitExceeded(_ limit: String) -> String { "Failed by limit \(limit)" }
}

public enum MediaKind: String, Sendable {
    case audio
    case video
}

/// Play constraints for video (docs/protocol.md "Constraints"). nil means "no cap".
public struct VideoConstraints: Sendable, Equatable {
    public enum Quality: Sendable, Equatable {
        case auto, high, medium, low
    }

    public var width: Int?
    public var height: Int?
    public var fps: Int?
    public var bitrateKbps: Int?
    public var minBitrateKbps: Int?
    public var maxBitrateKbps: Int?
    public var quality: Quality

    public init(width: Int? = nil, height: Int? = nil, fps: Int? = nil, bitrateKbps: Int? = nil,
                minBitrateKbps: Int? = nil, maxBitrateKbps: Int? = nil, quality: Quality = .auto) {
        self.width = width
        self.height = height
        self.fps = fps
        self.bitrateKbps = bitrateKbps
        self.minBitrateKbps = minBitrateKbps
        self.maxBitrateKbps = maxBitrateKbps
        self.quality = quality
    }
}

public struct StreamConstraints: Sendable, Equatable {
    /// false: this kind is not sent (publish) or not received (play).
    public var audio: Bool
    public var audioBitrateKbps: Int?
    /// nil when `video: false`.
    public var video: VideoConstraints?

    public init(audio: Bool = true, audioBitrateKbps: Int? = nil, video: VideoConstraints? = VideoConstraints()) {
        self.audio = audio
        self.audioBitrateKbps = audioBitrateKbps
        self.video = video
    }
}

/// Application errors of docs/protocol.md section 5 that the engine can raise.
public enum MediaError: Error, Equatable, Sendable {
    case streamNameInUse
    case streamNotFound
    case noCommonCodecs
    /// `message` names the offending SDP line.
    case badSDP(String)
    case unknownHandle
    case limitReached(String)
    case constraintsExceedLimits
    case wrongRole
    /// The publisher tried to lift a server-side (moderator) mute.
    case restrictedAccess
}

/// What the engine tells the control plane, in order per handle.
public enum MediaEvent: Sendable {
    /// `ends` is true when the handle is gone after this status.
    case streamStatus(session: SessionID, handle: StreamHandle, stream: String, role: StreamRole,
                      status: StreamStatus, info: String?, ends: Bool)
    /// `data` holds only JSON-friendly values: String, Int, Double, Bool.
    case streamEvent(session: SessionID, handle: StreamHandle, stream: String, type: String,
                     by: String?, data: [String: StreamEventValue])
}

public enum StreamEventValue: Sendable, Equatable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
}

public struct PublishRequest: Sendable {
    public var session: SessionID
    public var stream: String
    public var offer: String
    public var constraints: StreamConstraints
    /// Size and rate caps checked against what arrives (`limitExceeded`); none by default.
    public var caps: PublishCaps

    public init(session: SessionID, stream: String, offer: String, constraints: StreamConstraints,
                caps: PublishCaps = PublishCaps()) {
        self.session = session
        self.stream = stream
        self.offer = offer
        self.constraints = constraints
        self.caps = caps
    }
}

/// A publisher's caps on what it really sends (docs/protocol.md section 6, "Access tokens").
public struct PublishCaps: Sendable, Equatable {
    public var maxWidth: Int?
    public var maxHeight: Int?
    public var maxFps: Int?
    /// Stop it once a cap is exceeded, with "Failed by limit <name>".
    public var stopWhenExceeded: Bool

    public init(maxWidth: Int? = nil, maxHeight: Int? = nil, maxFps: Int? = nil, stopWhenExceeded: Bool = false) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxFps = maxFps
        self.stopWhenExceeded = stopWhenExceeded
    }
}

public struct PlayRequest: Sendable {
    public var session: SessionID
    public var stream: String
    public var offer: String
    public var constraints: StreamConstraints
    public var wait: Bool

    public init(session: SessionID, stream: String, offer: String, constraints: StreamConstraints, wait: Bool) {
        self.session = session
        self.stream = stream
        self.offer = offer
        self.constraints = constraints
        self.wait = wait
    }
}

public struct MediaAnswer: Sendable {
    public var handle: StreamHandle
    public var sdp: String

    public init(handle: StreamHandle, sdp: String) {
        self.handle = handle
        self.sdp = sdp
    }
}

/// A snapshot of one kind's figures (docs/protocol.md section 3).
public struct KindStats: Sendable {
    public var packets: UInt64 = 0
    public var bytes: UInt64 = 0
    public var bitrateKbps: Double = 0
    public var packetsLost: Int64 = 0
    public var fractionLost: Double = 0
    public var jitterMs: Double = 0
    public var rttMs: Double = 0
    public var nacks: UInt64 = 0
    public var plis: UInt64 = 0
    public var firs: UInt64 = 0
    public var codec: String?
    // video only
    public var fps: Double = 0
    public var width: Int = 0
    public var height: Int = 0
    public var layer: Int?
    public var keyFrames: UInt64 = 0
    /// Play: the player's bandwidth estimate (transport-cc or REMB), kbit/s.
    public var availableBandwidthKbps: Double?
    /// The stream's simulcast layers (video only).
    public var layers: [LayerStats] = []

    public init() {}
}

/// One simulcast layer as the stats show it (docs/protocol.md section 3).
public struct LayerStats: Sendable, Equatable {
    public var index: Int
    public var rid: String?
    public var width: Int
    public var height: Int
    public var fps: Double
    public var bitrateKbps: Double
    public var active: Bool
    /// Temporal layers seen (VP8 TID + 1); 1 without temporal scalability.
    public var temporalLayers = 1

    public init(index: Int, rid: String?, width: Int, height: Int, fps: Double, bitrateKbps: Double, active: Bool) {
        self.index = index
        self.rid = rid
        self.width = width
        self.height = height
        self.fps = fps
        self.bitrateKbps = bitrateKbps
        self.active = active
    }
}

public struct HandleStats: Sendable {
    public var handle: StreamHandle
    public var stream: String
    public var role: StreamRole
    public var audio: KindStats?
    public var video: KindStats?
    /// From what the peer reports (play) or what the server receives (publish); nil until known.
    public var connectionQuality: ConnectionQuality?
    /// The ICE path media takes: "udp" or "tcp" (ICE-TCP); nil until ICE selected one.
    public var transportProtocol: String?
    /// ICE-TCP: packets dropped because the connection's send queue was full (a slow reader).
    public var tcpSendDroppedPackets: UInt64 = 0

    public init(handle: StreamHandle, stream: String, role: StreamRole, audio: KindStats?, video: KindStats?) {
        self.handle = handle
        self.stream = stream
        self.role = role
        self.audio = audio
        self.video = video
    }
}

/// What the admin API shows of one stream (docs/protocol.md section 2).
public struct StreamView: Sendable {
    public var name: String
    public var publisher: HandleStats?
    public var publisherSession: SessionID?
    public var players: [HandleStats]
    public var audioMuted: MuteState
    public var videoMuted: MuteState
}

public struct MuteState: Sendable, Equatable {
    public var byPublisher = false
    public var byServer = false
    public var muted: Bool { byPublisher || byServer }

    public init(byPublisher: Bool = false, byServer: Bool = false) {
        self.byPublisher = byPublisher
        self.byServer = byServer
    }
}
