import SluiceVocabulary

/// Publish and play constraints (docs/protocol.md "Constraints"). Bitrates are in kbit/s. The
/// protocol's own type, SluiceVocabulary's `ConstraintsRequest`, which the server reads too.
public typealias StreamConstraints = ConstraintsRequest

/// `quality` of a play constraint: `.high`, `.medium`, `.low`, `.auto` (SluiceVocabulary's
/// `StreamQuality`, the server's own words) or `.level(Int)`, a WCS number.
public typealias PlayQuality = ConstraintsRequest.Quality

public typealias TrackLimits = ConstraintsRequest.Limits

extension ConstraintsRequest {
    public var json: JSONValue {
        var members = JSONObject()
        if let audio { members["audio"] = audio.json }
        if let video { members["video"] = video.json }
        return .object(members)
    }
}

extension ConstraintsRequest.Quality {
    var json: JSONValue {
        switch self {
        case .named(let quality): return .string(quality.rawValue)
        case .level(let value): return .int(Int64(value))
        }
    }
}

extension ConstraintsRequest.Limits {
    var json: JSONValue {
        var members = JSONObject()
        let numbers: [(String, Int?)] = [("width", width), ("height", height), ("fps", fps), ("bitrate", bitrate),
                                         ("minBitrate", minBitrate), ("maxBitrate", maxBitrate)]
        for case let (name, value?) in numbers { members[name] = .int(Int64(value)) }
        if let quality { members["quality"] = quality.json }
        return .object(members)
    }
}

extension ConstraintsRequest.Track {
    var json: JSONValue {
        switch self {
        case .off: return false
        case .on: return true
        case .limits(let limits): return limits.json
        }
    }
}
