/// The pre-call test's figures (docs/protocol.md section 6, "Pre-call test"): each nil until
/// the server has measured it. Rates are kbit/s at the IP layer, losses fractions (0 to 1).
public struct PrecallFigures: Sendable, Hashable {
    public var elapsedMs: Int?
    public var rttMs: Double?
    public var jitterMs: Double?
    public var lossUp: Double?
    public var lossDown: Double?
    public var uplinkKbps: Double?
    public var downlinkKbps: Double?

    public init(elapsedMs: Int? = nil, rttMs: Double? = nil, jitterMs: Double? = nil, lossUp: Double? = nil,
                lossDown: Double? = nil, uplinkKbps: Double? = nil, downlinkKbps: Double? = nil) {
        self.elapsedMs = elapsedMs
        self.rttMs = rttMs
        self.jitterMs = jitterMs
        self.lossUp = lossUp
        self.lossDown = lossDown
        self.uplinkKbps = uplinkKbps
        self.downlinkKbps = downlinkKbps
    }

    init(_ data: JSONValue) {
        elapsedMs = data["elapsedMs"]?.intValue.map { Int($0) }
        rttMs = data["rttMs"]?.doubleValue
        jitterMs = data["jitterMs"]?.doubleValue
        lossUp = data["lossUp"]?.doubleValue
        lossDown = data["lossDown"]?.doubleValue
        uplinkKbps = data["uplinkKbps"]?.doubleValue
        downlinkKbps = data["downlinkKbps"]?.doubleValue
    }
}

/// What to publish with: a rung of the server's ladder that fits the measured uplink.
public struct PrecallPublishAdvice: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var fps: Int
    /// kbit/s, never over the uplink.
    public var bitrate: Int

    public init(width: Int, height: Int, fps: Int, bitrate: Int) {
        self.width = width
        self.height = height
        self.fps = fps
        self.bitrate = bitrate
    }
}

/// The `precallReport` event's data.
public struct PrecallReport: Sendable, Hashable {
    public var figures: PrecallFigures
    public var durationMs: Int
    /// The MOS of `connectionQuality` (1.0 to 4.5) and its level (`excellent` ... `poor`).
    public var qualityScore: Double
    public var qualityLevel: String
    /// nil without an uplink reading.
    public var publish: PrecallPublishAdvice?
    /// `high`, `medium` or `low`; nil without a downlink reading.
    public var playQuality: String?

    /// nil when `data` is not a report.
    init?(_ data: JSONValue) {
        guard let duration = data["durationMs"]?.intValue, let quality = data["quality"],
              let score = quality["score"]?.doubleValue, let level = quality["level"]?.stringValue else { return nil }
        figures = PrecallFigures(data)
        durationMs = Int(duration)
        qualityScore = score
        qualityLevel = level
        let publishAdvice = data["recommended"]?["publish"]
        if let width = publishAdvice?["width"]?.intValue, let height = publishAdvice?["height"]?.intValue,
           let fps = publishAdvice?["fps"]?.intValue, let bitrate = publishAdvice?["bitrate"]?.intValue {
            publish = PrecallPublishAdvice(width: Int(width), height: Int(height), fps: Int(fps), bitrate: Int(bitrate))
        }
        playQuality = data["recommended"]?["play"]?["quality"]?.stringValue
    }
}

/// One pre-call `streamEvent`, read: progress once a second, then the report or the failure.
public enum PrecallUpdate: Sendable, Hashable {
    case progress(PrecallFigures)
    case report(PrecallReport)
    /// The test could not run (`info` as for a failed stream: "Failed by ICE timeout" ...).
    case failed(info: String)

    /// nil for any other event.
    public init?(_ event: StreamEvent) {
        switch event.type {
        case .precallProgress:
            self = .progress(PrecallFigures(event.data ?? .null))
        case .precallReport:
            guard let report = PrecallReport(event.data ?? .null) else { return nil }
            self = .report(report)
        case .precallFailed:
            self = .failed(info: event.data?["info"]?.stringValue ?? "")
        default:
            return nil
        }
    }

    /// The report or the failure: the handle has ended.
    public var isFinal: Bool {
        if case .progress = self { return false }
        return true
    }
}
