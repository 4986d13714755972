/// The `constraints` of a `publish`, `play` or `update` (docs/protocol.md "Constraints"), as
/// a client sends them and the server reads them: each kind off, on, or on with limits, every
/// member optional. Bitrates are in kbit/s. The SDK builds one (its `StreamConstraints`); the
/// server reads one and then applies its defaults (SluiceMedia's `StreamConstraints`).
public struct ConstraintsRequest: Sendable, Hashable {
    /// One kind's constraint: off, on, or on with limits.
    public enum Track: Sendable, Hashable {
        case off
        case on
        case limits(Limits)
    }

    /// A kind's limits: for audio only `bitrate` is read.
    public struct Limits: Sendable, Hashable {
        public var width: Int?
        public var height: Int?
        public var fps: Int?
        public var bitrate: Int?
        public var minBitrate: Int?
        public var maxBitrate: Int?
        public var quality: Quality?

        public init(width: Int? = nil, height: Int? = nil, fps: Int? = nil, bitrate: Int? = nil,
                    minBitrate: Int? = nil, maxBitrate: Int? = nil, quality: Quality? = nil) {
            self.width = width
            self.height = height
            self.fps = fps
            self.bitrate = bitrate
            self.minBitrate = minBitrate
            self.maxBitrate = maxBitrate
            self.quality = quality
        }
    }

    /// `quality` of a play constraint: one of the protocol's words or a WCS number.
    public enum Quality: Sendable, Hashable {
        case named(StreamQuality)
        /// 1 to 100, for WCS compatibility.
        case level(Int)

        public static var high: Quality { .named(.high) }
        public static var medium: Quality { .named(.medium) }
        public static var low: Quality { .named(.low) }
        public static var auto: Quality { .named(.auto) }

        /// The word it stands for: a level of 67 and over is high, 34 and over medium, below low.
        public var resolved: StreamQuality {
            switch self {
            case .named(let quality): return quality
            case .level(let level): return StreamQuality(level: level)
            }
        }
    }

    public var audio: Track?
    public var video: Track?

    public init(audio: Track? = nil, video: Track? = nil) {
        self.audio = audio
        self.video = video
    }
}
