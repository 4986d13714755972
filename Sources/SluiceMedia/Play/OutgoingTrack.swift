import SluiceVocabulary

/// One kind of media as it goes to one player: its negotiated SSRC, payload type and
/// extensions, and what was sent on it (for sender reports, stats and padding).
struct OutgoingTrack {
    let parameters: TrackParameters
    let mid: [UInt8]
    var packets: UInt64 = 0
    var bytes: UInt64 = 0
    var bitrate = BitrateMeter()
    var lastRTPTimestamp: UInt32 = 0
    var lastSendMicros: UInt64 = 0
    var keyFrames: UInt64 = 0
    /// Frames sent per second (video), from the output timestamps.
    var frames = FrameRateMeter()
    /// The last packet sent ended a frame: a safe point to insert padding.
    var atFrameBoundary = false
    /// Video whose player negotiated RTX: NACKs are answered on this stream.
    var rtx: RTXStream?

    init(parameters: TrackParameters) {
        self.parameters = parameters
        mid = Array(parameters.mid.utf8)
        rtx = RTXStream(track: parameters)
    }
}
