import SluiceVocabulary

/// Which of a recording's (at most two) tracks a frame belongs to.
public enum RecordingTrack: String, Sendable, CaseIterable {
    case video, audio
}

/// The video track of a recording, as known at its first key frame.
public struct RecordedVideoTrack: Sendable, Equatable {
    public var codec: RecordedCodec
    public var width: Int
    public var height: Int
    /// The codec's out-of-band setup, or nil:
    /// - H264: required. SPS and PPS, either Annex B (start codes; what RTP depacketization
    ///   gives) with Annex B frames, or an avcC record with 4-byte length-prefixed frames. The
    ///   frames must be in the same form as this.
    /// - AV1: required. The sequence header OBU (low-overhead format, with its size field), or a
    ///   whole av1C record; libavformat builds the av1C CodecPrivate from it.
    /// - VP8, VP9: nil (everything is in the frame headers).
    public var extradata: [UInt8]?

    public init(codec: RecordedCodec, width: Int, height: Int, extradata: [UInt8]? = nil) {
        self.codec = codec
        self.width = width
        self.height = height
        self.extradata = extradata
    }
}

/// The audio track of a recording: Opus at 48 kHz (RTP's Opus clock is always 48 kHz).
public struct RecordedAudioTrack: Sendable, Equatable {
    public var codec: RecordedCodec
    /// 1 or 2 (`sprop-stereo`/`stereo` in the SDP).
    public var channels: Int

    public init(codec: RecordedCodec = .opus, channels: Int) {
        self.codec = codec
        self.channels = channels
    }

    public static let sampleRate = 48_000
}
