import SluiceRTP
import SluiceVocabulary

/// One kind of media as it goes to one player: its negotiated SSRC, payload type and
/// extensions, and what was sent on it (for sender reports, stats and padding).
struct OutgoingTrack {
    let parameters: TrackParameters
    /// The header extensions' ids, apart from `parameters`, whose strings the packet path
    /// must not touch: a packet that read them paid a retain and a release (perf).
    let extensionIDs: NegotiatedExtensions
    /// The mid as its header extension carries it, held inline for the same reason. Nil when
    /// empty or longer than `RTPToken.capacity`; then it is in `longMid`.
    let mid: RTPToken?
    /// A mid longer than `RTPToken.capacity` (no browser makes one); else empty.
    let longMid: [UInt8]
    /// Every packet's extensions fit the one-byte form and one of them is on every packet
    /// (mid, abs-send-time or transport-cc): headers are written straight into the packet
    /// (`RTPOneByteExtensionBlock`) rather than through a list.
    let oneByteExtensions: Bool
    var packets: UInt64 = 0
    var bytes: UInt64 = 0
    var bitrate = BitrateMeter()
    var lastRTPTimestamp: UInt32 = 0
    var lastSendMicros: UInt64 = 0
    var keyFrames: UInt64 = 0
    /// Audio packets sent in RED (the player negotiated it and the publisher sends it).
    var redPackets: UInt64 = 0
    /// The output timestamp of the newest key frame sent (once `keyFrames > 0`). A packet of
    /// an older frame is not retransmitted: the player decodes on from the key frame without
    /// it. After a switch down under a cap, the old layer's lost packets, asked for again
    /// until the new layer's key frame decoded, filled the link and kept that key frame out.
    var keyFrameTimestamp: UInt32 = 0
    /// Frames sent per second (video), from the output timestamps.
    var frames = FrameRateMeter()
    /// The last packet sent ended a frame: a safe point to insert padding.
    var atFrameBoundary = false
    /// Packets sent with the current RTP timestamp: the frame's own, then padding after it.
    var packetsAtTimestamp = 0
    /// Receivers reassemble frames by timestamp in a bounded buffer (aiortc's holds 128
    /// packets; a longer run of one timestamp leaves it a "frame" of padding alone, whose
    /// empty data ends its decoder for good). So padding stops here until the next frame:
    /// a source that stalls (its publisher or origin died) gets a few dozen padding packets,
    /// not a probe's seconds of them.
    static let maxPacketsPerTimestamp = 96
    /// Video whose player negotiated RTX: NACKs are answered on this stream.
    var rtx: RTXStream?

    /// A forwarded packet with `timestamp` is sent (before `lastRTPTimestamp` takes it).
    @inline(__always)
    mutating func countSent(timestamp: UInt32) {
        packetsAtTimestamp = packets == 0 || timestamp != lastRTPTimestamp ? 1 : packetsAtTimestamp + 1
    }

    /// A packet sent with `timestamp` belongs to a frame before the newest key frame sent.
    func precedesKeyFrame(_ timestamp: UInt32) -> Bool {
        keyFrames > 0 && Int32(bitPattern: timestamp &- keyFrameTimestamp) < 0
    }

    /// Takes room for one padding packet after the current frame; false when it has none.
    mutating func takePaddingSlot() -> Bool {
        guard packets > 0, packetsAtTimestamp < Self.maxPacketsPerTimestamp else { return false }
        packetsAtTimestamp += 1
        return true
    }

    init(parameters: TrackParameters) {
        self.parameters = parameters
        extensionIDs = parameters.extensions
        mid = RTPToken(parameters.mid)
        longMid = mid == nil ? Array(parameters.mid.utf8) : []
        rtx = RTXStream(track: parameters)
        let ids = parameters.extensions
        let fit = { (id: UInt8?, length: Int) in id.map { RTPHeaderExtensionForm.fitsOneByte(id: $0, length: length) } ?? true }
        oneByteExtensions = (ids.mid != nil || ids.absSendTime != nil || ids.transportCC != nil)
            && fit(ids.mid, parameters.mid.utf8.count) && fit(ids.absSendTime, 3) && fit(ids.transportCC, 2) && fit(ids.audioLevel, 1)
    }
}
