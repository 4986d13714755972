import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// docs/protocol.md "Constraints": `audio` and `video` are each false, true or an object;
/// bitrates in kbit/s; `quality` a name or a 1-100 WCS number. Unknown members are ignored.
public enum ConstraintsParser {
    /// Caps above this are surely mistakes, and keep later arithmetic far from overflow.
    static let largestValue: Int64 = 10_000_000

    /// The constraints with the server's defaults applied (SluiceMedia's `StreamConstraints`).
    public static func parse(_ value: JSONValue) throws(RPCError) -> StreamConstraints {
        StreamConstraints(try request(value))
    }

    /// The constraints as the client sent them: the words the SDK builds its own from.
    public static func request(_ value: JSONValue) throws(RPCError) -> ConstraintsRequest {
        guard let object = value.objectValue else { throw .invalidParams("'constraints' must be an object") }
        var request = ConstraintsRequest()

        switch object["audio"] {
        case nil, .null?:
            break
        case .bool(let enabled)?:
            request.audio = enabled ? .on : .off
        case .object(let audio)?:
            let bitrate = try positiveInteger(audio["bitrate"], field: "constraints.audio.bitrate")
            request.audio = .limits(ConstraintsRequest.Limits(bitrate: bitrate))
        default:
            throw .invalidParams("'constraints.audio' must be a boolean or an object")
        }

        switch object["video"] {
        case nil, .null?:
            break
        case .bool(let enabled)?:
            request.video = enabled ? .on : .off
        case .object(let video)?:
            request.video = .limits(try parseVideo(video))
        default:
            throw .invalidParams("'constraints.video' must be a boolean or an object")
        }
        return request
    }

    static func parseVideo(_ video: JSONObject) throws(RPCError) -> ConstraintsRequest.Limits {
        var result = ConstraintsRequest.Limits()
        result.width = try positiveInteger(video["width"], field: "constraints.video.width")
        result.height = try positiveInteger(video["height"], field: "constraints.video.height")
        result.fps = try positiveInteger(video["fps"], field: "constraints.video.fps")
        result.bitrate = try positiveInteger(video["bitrate"], field: "constraints.video.bitrate")
        result.minBitrate = try positiveInteger(video["minBitrate"], field: "constraints.video.minBitrate")
        result.maxBitrate = try positiveInteger(video["maxBitrate"], field: "constraints.video.maxBitrate")
        if let minimum = result.minBitrate, let maximum = result.maxBitrate, minimum > maximum {
            throw .invalidParams("'constraints.video.minBitrate' must not exceed 'constraints.video.maxBitrate'")
        }
        result.quality = try quality(video["quality"])
        return result
    }

    /// Whole numbers only; `30.0` is taken as 30, `29.97` is refused.
    static func positiveInteger(_ value: JSONValue?, field: String) throws(RPCError) -> Int? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.intValue, (1...largestValue).contains(number) else {
            throw .invalidParams("'\(field)' must be an integer from 1 to \(largestValue)")
        }
        return Int(number)
    }

    /// nil when not given (the server's default is auto).
    static func quality(_ value: JSONValue?) throws(RPCError) -> ConstraintsRequest.Quality? {
        let problem = RPCError.invalidParams(
            "'constraints.video.quality' must be \"auto\", \"high\", \"medium\", \"low\" or an integer from 1 to 100")
        switch value {
        case nil, .null?:
            return nil
        case .string(let name)?:
            guard let quality = StreamQuality(name: name) else { throw problem }
            return .named(quality)
        case let number? where number.isNumber:
            guard let level = number.intValue, (1...100).contains(level) else { throw problem }
            return .level(Int(level))
        default:
            throw problem
        }
    }
}
