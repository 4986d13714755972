/// What a recording holds: the publisher's negotiated codecs, by payload type.
public struct RecordingTracks: Sendable, Equatable {
    public struct Track: Sendable, Equatable {
        public var codec: RecordedCodec
        public var payloadType: UInt8
        public var clockRate: UInt32
        /// Audio only.
        public var channels: Int

        public init(codec: RecordedCodec, payloadType: UInt8, clockRate: UInt32, channels: Int = 2) {
            self.codec = codec
            self.payloadType = payloadType
            self.clockRate = clockRate
            self.channels = channels
        }
    }

    public var audio: Track?
    public var video: Track?

    public init(audio: Track?, video: Track?) {
        self.audio = audio
        self.video = video
    }

    /// `vp8+opus`, `h264`, `opus`: what `recordingStopped` calls the file's codecs.
    public var codecWord: String {
        [video?.codec.rawValue, audio?.codec.rawValue].compactMap { $0 }.joined(separator: "+")
    }

    /// WebM for VP8, VP9 and AV1 (and audio alone); MP4 for H264.
    public var fileExtension: String { video?.codec == .h264 ? "mp4" : "webm" }
}
