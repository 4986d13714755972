import CAVFormat
#if canImport(Glibc)
import Glibc
#endif

/// Why a recording could not be written. After any of these but `timestampWentBack` and
/// `unknownTrack` the writer is failed: every later call throws `failed`, and the `.part` is
/// left as it is (playable up to the last complete cluster or fragment).
public enum RecordingWriteError: Error, Equatable, CustomStringConvertible {
    /// ENOSPC from a write or a flush: the `recordingFailed` `DISK_FULL` case.
    case diskFull(path: String)
    /// A track description the container cannot carry (e.g. H264 in WebM, 3 audio channels).
    case unsupportedTrack(String)
    /// A frame for a track the writer was not opened with.
    case unknownTrack(RecordingTrack)
    /// A timestamp not after the track's previous one (or negative). The frame is refused and
    /// the writer goes on.
    case timestampWentBack(track: RecordingTrack, previousMillis: Int64, gotMillis: Int64)
    /// libavformat failed: which call, its error code and av_strerror's text.
    case libav(call: String, code: Int32, message: String)
    /// The rename of `.part` to the final path failed (errno).
    case renameFailed(path: String, errno: Int32)
    /// The writer already failed or was closed.
    case failed

    public var description: String {
        switch self {
        case .diskFull(let path): return "disk full writing \(path)"
        case .unsupportedTrack(let why): return "unsupported track: \(why)"
        case .unknownTrack(let track): return "no \(track.rawValue) track in this recording"
        case .timestampWentBack(let track, let previous, let got):
            return "\(track.rawValue) timestamp \(got) ms is not after the previous \(previous) ms"
        case .libav(let call, let code, let message): return "\(call) failed (\(code)): \(message)"
        case .renameFailed(let path, let errno): return "rename to \(path) failed (errno \(errno))"
        case .failed: return "the recording writer has failed or is closed"
        }
    }

    /// Maps a negative libav return code: AVERROR(ENOSPC) to `diskFull`, anything else to
    /// `libav` with av_strerror's message.
    static func from(code: Int32, call: String, path: String) -> RecordingWriteError {
        if code == sluice_averror(ENOSPC) { return .diskFull(path: path) }
        var buffer = [CChar](repeating: 0, count: 128)
        if av_strerror(code, &buffer, buffer.count) < 0 {
            return .libav(call: call, code: code, message: "unknown error")
        }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return .libav(call: call, code: code, message: String(decoding: bytes, as: UTF8.self))
    }
}
