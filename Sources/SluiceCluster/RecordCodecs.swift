import SluiceJSON

/// The codecs a stream's origin publishes, in its stream record (`codecs`), so another node can
/// answer a player's offer before its relay link is up. SluiceCluster knows no media: the
/// server maps these to and from the control plane's `StreamCodecs`.
public struct RecordCodecs: Sendable, Equatable {
    public struct Codec: Sendable, Equatable {
        public var name: String
        public var payloadType: Int
        public var clockRate: Int
        public var fmtp: String
        /// Audio: Opus in RED's payload type, when the publisher sends RED.
        public var redPayloadType: Int?

        public init(name: String, payloadType: Int, clockRate: Int, fmtp: String, redPayloadType: Int? = nil) {
            self.name = name
            self.payloadType = payloadType
            self.clockRate = clockRate
            self.fmtp = fmtp
            self.redPayloadType = redPayloadType
        }

        public var json: JSONValue {
            var object: JSONObject = ["name": .string(name), "payloadType": JSONValue(payloadType),
                                      "clockRate": JSONValue(clockRate), "fmtp": .string(fmtp)]
            if let redPayloadType { object["redPayloadType"] = JSONValue(redPayloadType) }
            return .object(object)
        }

        /// Nil for anything that is not a codec (a name, a payload type 0...127, a clock rate
        /// that fits 32 bits, an fmtp string, and a RED payload type 0...127 other than the
        /// codec's when there is one).
        public init?(json value: JSONValue) {
            guard let name = value["name"]?.stringValue, !name.isEmpty, name.utf8.count <= 64,
                  let payloadType = value["payloadType"]?.intValue, (0...127).contains(payloadType),
                  let clockRate = value["clockRate"]?.intValue, (1...Int64(UInt32.max)).contains(clockRate),
                  let fmtp = value["fmtp"]?.stringValue, fmtp.utf8.count <= 1024 else { return nil }
            var red: Int?
            if let part = value["redPayloadType"], !part.isNull {
                guard let number = part.intValue, (0...127).contains(number), number != payloadType else { return nil }
                red = Int(number)
            }
            self.init(name: name, payloadType: Int(payloadType), clockRate: Int(clockRate), fmtp: fmtp, redPayloadType: red)
        }
    }

    public var audio: Codec?
    public var video: Codec?
    /// Simulcast layers the publisher sends (1 without simulcast).
    public var layers: Int

    public init(audio: Codec?, video: Codec?, layers: Int) {
        self.audio = audio
        self.video = video
        self.layers = layers
    }

    public var json: JSONValue {
        var object: JSONObject = [:]
        if let audio { object["audio"] = audio.json }
        if let video { object["video"] = video.json }
        object["layers"] = JSONValue(layers)
        return .object(object)
    }

    /// Nil when any part is not what a node writes; a kind that is absent (or null) is nil.
    public init?(json value: JSONValue) {
        guard value.objectValue != nil, let layers = value["layers"]?.intValue, (1...16).contains(layers) else { return nil }
        func codec(_ key: String) -> Codec?? {
            guard let part = value[key], !part.isNull else { return .some(nil) }
            return Codec(json: part).map { .some($0) }
        }
        guard let audio = codec("audio"), let video = codec("video") else { return nil }
        self.init(audio: audio, video: video, layers: Int(layers))
    }
}
