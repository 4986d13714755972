import SluiceVocabulary

/// Places the frames of a recording's tracks on one timeline in milliseconds, 0 at the first
/// frame written, so audio and video line up in the file.
///
/// Each track's time comes from its RTP timestamps, so a pause in the packets (a mute) leaves
/// the same pause in the file rather than closing it up. What anchors the tracks to each other:
/// - before any sender report, each track's first frame is placed at its arrival time (the
///   packets' clock), and later frames follow by RTP;
/// - once a track has a sender report, its frames are placed by NTP (the publisher's one
///   wall clock for all its tracks, which is what keeps them in sync), mapped onto the packets'
///   clock by one offset, set at the first report so the switch does not jump the track that
///   had it first; later reports are not used (see `add`);
/// - video never steps: when it switches to NTP after audio did, the offset is set again so
///   video goes on where it is, and audio takes the correction (a gap forwards, or a few
///   frames 1 ms apart backwards). Video's first frame, a key frame, often arrives tens of ms
///   late and anchors it late; a step back would crowd two frames into one slot of a
///   player's frame grid (or get one refused by the writer, a broken picture up to the next
///   key frame), and any step moves video off the grid of its first frame, where the
///   milliseconds round two frames into one slot now and then (ffmpeg: "non monotonically
///   increasing dts"). Audio frames carry their own length, and Opus hides a lost one.
public struct RecordingTimeline {
    /// RTP clock rates by kind (Hz).
    public let audioClockRate: Int
    public let videoClockRate: Int

    private var tracks: [MediaKind: Track] = [:]
    /// Packets' clock minus NTP (µs): set at the first sender report used, and again at video's (see above).
    private var ntpToArrival: Int64?
    /// The first frame written, on the packets' clock (µs): the timeline's 0.
    private var originMicros: Int64?

    struct Track {
        /// A frame's unwrapped RTP timestamp and its place on the packets' clock, before the
        /// track's report (nil again once the track is on NTP).
        var anchor: (rtp: Int64, micros: Int64)?
        /// The first sender report (see `add`): NTP in µs and its RTP timestamp (32-bit, unwrapped at use).
        var report: (ntpMicros: Int64, rtp: UInt32)?
        var lastMillis: Int64?
    }

    public init(audioClockRate: Int = 48_000, videoClockRate: Int = 90_000) {
        self.audioClockRate = max(1, audioClockRate)
        self.videoClockRate = max(1, videoClockRate)
    }

    /// A sender report's clock pair for one kind: the first one per kind is kept. Later ones
    /// would step the track by their own error (aiortc, for one, pairs the wall clock with
    /// its last packet's RTP timestamp, up to a frame off), and a step of a few ms puts two
    /// frames in one slot of a player's 30 fps grid; one sender's RTP clocks run off its one
    /// system clock, so they do not drift apart over a recording.
    public mutating func add(_ pair: RecordedClockPair) {
        guard tracks[pair.kind]?.report == nil else { return }
        tracks[pair.kind, default: Track()].report = (Self.micros(ntp: pair.ntp), pair.rtpTimestamp)
    }

    /// The time in the file (ms from the first frame written) of a frame of `kind` with the
    /// unwrapped RTP timestamp `rtpTimestamp`, whose first packet arrived at `arrivalMicros`.
    /// Call it in the order frames are written. Always after the track's previous value.
    public mutating func millis(kind: MediaKind, rtpTimestamp: Int64, arrivalMicros: UInt64) -> Int64 {
        let rate = Int64(kind == .audio ? audioClockRate : videoClockRate)
        var track = tracks[kind, default: Track()]
        let arrival = Int64(clamping: min(arrivalMicros, UInt64(Self.limit)))
        var micros: Int64
        if let report = track.report {
            // The report's RTP timestamp nearest this frame's, so a wrap between them does not matter.
            let reportRTP = rtpTimestamp + Int64(Int32(bitPattern: report.rtp &- UInt32(truncatingIfNeeded: rtpTimestamp)))
            let ntp = report.ntpMicros + Self.scale(rtpTimestamp - reportRTP, rate: rate)
            if let anchor = track.anchor {
                // The switch from arrival to NTP: the first track, and video, go on where they are.
                let here = anchor.micros + Self.scale(rtpTimestamp - anchor.rtp, rate: rate)
                if ntpToArrival == nil || kind == .video { ntpToArrival = here - ntp }
                track.anchor = nil
            } else if ntpToArrival == nil {
                ntpToArrival = arrival - ntp  // the first frame of all, with its report already in
            }
            micros = ntp + ntpToArrival!
        } else {
            if track.anchor == nil { track.anchor = (rtpTimestamp, arrival) }
            let anchor = track.anchor!
            micros = anchor.micros + Self.scale(rtpTimestamp - anchor.rtp, rate: rate)
        }
        if originMicros == nil { originMicros = micros }
        var value = (micros - originMicros!) / 1_000
        // Always forwards on a track, by at least 1 ms: the writer refuses a timestamp that is
        // not after the previous one of the same track, and one can still step back here
        // (audio taking video's correction, or a frame of another track written first at time
        // 0 after this track was anchored earlier). A refused video frame is a silent hole the
        // decoder goes on from, a broken picture up to the next key frame.
        if value < 0 { value = 0 }
        if let last = track.lastMillis, value <= last { value = last + 1 }
        track.lastMillis = value
        tracks[kind] = track
        return value
    }

    /// Bound on every time here (µs, some 36,000 years): a publisher's timestamps may jump
    /// anywhere, and the sums of bounded values cannot overflow.
    static let limit: Int64 = 1 << 60

    /// RTP ticks to µs, saturating at ±`limit`.
    static func scale(_ ticks: Int64, rate: Int64) -> Int64 {
        let (product, overflow) = ticks.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return ticks < 0 ? -limit : limit }
        return max(-limit, min(limit, product / rate))
    }

    /// NTP 32.32 fixed point to µs.
    static func micros(ntp: UInt64) -> Int64 {
        let seconds = Int64(ntp >> 32)
        let fraction = Int64(((ntp & 0xffff_ffff) * 1_000_000) >> 32)  // >> binds tighter than * in Swift
        return seconds * 1_000_000 + fraction
    }
}
