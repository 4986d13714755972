/// The file format of one recording, chosen by the video codec so nothing is transcoded.
///
/// A resize in the middle of a recording (what each container does with it; the recorder must
/// act on `carriesResizeInPlace`):
/// - **WebM** (VP8, VP9, AV1): carried in place. The track entry keeps the first size (a
///   player's initial hint only); the new size is in the key frame's own header (VP8/VP9 frame
///   header, AV1 sequence header), which libvpx/libaom/dav1d and browsers follow. No new track
///   entry is written (libavformat cannot add one after the header).
/// - **MP4** (H264): a new file segment. The avcC in the moov holds the first SPS; a changed SPS
///   in the stream is not followed by every player (MSE in browsers in particular), so the
///   recorder closes this writer and opens a new one (a new path) at the first key frame of the
///   new size.
public enum RecordingContainer: String, Sendable, CaseIterable {
    case webm, mp4

    /// The container for a video codec; for an audio-only (Opus) stream WebM.
    public init(videoCodec: RecordedCodec?) {
        self = videoCodec == .h264 ? .mp4 : .webm
    }

    public var fileExtension: String { rawValue }

    /// True when a size change mid-recording goes on in the same file (see the type's comment).
    public var carriesResizeInPlace: Bool { self == .webm }

    /// The libavformat muxer's short name.
    var muxerName: String { self == .webm ? "webm" : "mp4" }

    func accepts(video codec: RecordedCodec) -> Bool {
        switch self {
        case .webm: return codec == .vp8 || codec == .vp9 || codec == .av1
        case .mp4: return codec == .h264
        }
    }

    /// The muxer options, chosen so a `.part` cut off by kill -9 plays up to about a second or
    /// two before the cut, and the closed file still has a duration and cues for seeking.
    ///
    /// Both: `flush_packets=1` flushes the AVIOContext after every packet the muxer writes, so
    /// what the muxer has finished is in the kernel (and survives kill -9 of the process)
    /// instead of in avio's 32 KiB buffer; `max_interleave_delta` (set on the context) bounds
    /// how long the interleaver holds one track's packets waiting for the other (a muted track
    /// would otherwise hold the other back up to 10 s).
    ///
    /// WebM: the matroska muxer builds each cluster in memory and writes it when the cluster
    /// ends, so the cluster limits are what set how much a crash loses: a cluster ends after
    /// 1 s or 512 KiB, whichever first (its defaults on a seekable file are 5 s and 5 MiB).
    /// `live` is NOT set: it would drop the cues and the duration written by the trailer, which
    /// a closed file needs for seeking; a cut file without them is still read cluster by
    /// cluster (ffprobe, browsers).
    ///
    /// MP4: fragmented (`frag_keyframe+empty_moov+default_base_moof`): an empty moov at the
    /// start, then self-contained moof+mdat fragments, so a cut file has every complete
    /// fragment. WebRTC sends key frames only on request (seconds to minutes apart), so
    /// `frag_duration=1000000` (µs) also ends a fragment every second; a fragment that does not
    /// start on a key frame is valid (each sample carries its sync flag). `default_base_moof`
    /// is what MSE/browsers expect of fragments.
    var muxerOptions: [(String, String)] {
        switch self {
        case .webm:
            return [("flush_packets", "1"), ("cluster_time_limit", "1000"), ("cluster_size_limit", "524288")]
        case .mp4:
            return [("flush_packets", "1"), ("movflags", "frag_keyframe+empty_moov+default_base_moof"),
                    ("frag_duration", "1000000")]
        }
    }
}
