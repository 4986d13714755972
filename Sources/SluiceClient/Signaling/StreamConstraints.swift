import SluiceVocabulary

/// Publish and play constraints (docs/protocol.md "Constraints"). Bitrates are in kbit/s.
public struct StreamConstraints: Sendable, Hashable {
    /// One kind's constraint: off, on, or on with limits.
    public enum Track: Sendable, Hashable {
        case off
        case on
        case limits(TrackLimits)
    }

    public var audio: Track?
    public var video: Track?

    public init(audio: Track? = nil, video: Track? = nil) {
        self.audio = audio
        self.video = video
    }

    public var json: JSONValue {
        var members = JSONObject()
        if let audio { members["audio"] = audio.json }
        if let video { members["video"] = video.json }
        return .object(members)
    }
}

/// `quality` of a play constraint: one of the protocol's words (SluiceVocabulary's
/// `StreamQuality`, the server's own type) or a WCS number.
public enum PlayQuality: Sendable, Hashable {
    case named(StreamQuality)
    /// 1 to 100, for WCS compatibility.
    case level(Int)

    public static var high: PlayQuality { .named(.high) }
    public static var medium: PlayQuality { .named(.medium) }
    public static var low: PlayQuality { .named(.low) }
    public static var auto: PlayQuality { .named(.auto) }

    var json: JSONValue {
        switch self {
        case .named(let quality): return .string(quality.rawValue)
        case .level(let value): return .int(Int64(value))
        }
    }
}

public struct TrackLimits: Sendable, Hashable {
    public var width: Int?
    public var height: Int?
    public var fps: Int?
    public var bitrate: Int?
    public var minBitrate: Int?
    public var maxBitrate: Int?
    public var quality: PlayQuality?

    public init(width: Int? = nil, height: Int? = nil, fps: Int? = nil, bitrate: Int? = nil,
                minBitrate: Int? = nil, maxBitrate: Int? = nil, quality: PlayQuality? = nil) {
        self.width = width
        self.height = height
        self.fps = fps
        self.bitrate = bitrate
        self.minBitrate = minBitrate
        self.maxBitrate = maxBitrate
        self.quality = quality
    }

    var json: JSONValue {
        var members = JSONObject()
        let numbers: [(String, Int?)] = [("width", width), ("height", height), ("fps", fps), ("bitrate", bitrate),
                                         ("minBitrate", minBitrate), ("maxBitrate", maxBitrate)]
        for case let (name, value?) in numbers { members[name] = .int(Int64(value)) }
        if let quality { members["quality"] = quality.json }
        return .object(members)
    }
}

extension StreamConstraints.Track {
    var json: JSONValue {
        switch self {
        case .off: return false
        case .on: return true
        case .limits(let limits): return limits.json
        }
    }
}
