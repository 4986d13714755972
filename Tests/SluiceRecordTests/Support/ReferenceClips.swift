import Foundation

/// The reference clips, encoded once per test run with Debian's ffmpeg from lavfi test
/// sources (a moving test pattern, a 440 Hz sine): short, so the whole suite stays in seconds.
enum ReferenceClips {
    private static let directory: String = {
        let path = NSTemporaryDirectory() + "sluice-record-clips-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    private static let video = ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=30"]
    private static let audio = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"]

    static let vp8Opus = make("vp8-opus.webm", video + audio + ["-t", "3", "-c:v", "libvpx", "-b:v", "300k",
                                                                 "-c:a", "libopus"])
    static let vp9 = make("vp9.webm", video + ["-t", "2", "-c:v", "libvpx-vp9", "-deadline", "realtime",
                                               "-cpu-used", "8", "-g", "30"])
    /// SVT-AV1 is the fastest AV1 encoder Debian's ffmpeg has (libaom is 3x slower here).
    static let av1Opus = make("av1-opus.webm", video + audio + ["-t", "2", "-c:v", "libsvtav1", "-preset", "12",
                                                                 "-g", "30", "-c:a", "libopus"])
    /// MPEG-TS so the frames are Annex B, as RTP depacketization gives them; baseline without
    /// B-frames, as WebRTC sends.
    static let h264Opus = make("h264-opus.ts", video + audio + ["-t", "3", "-c:v", "libx264", "-profile:v", "baseline",
                                                                 "-pix_fmt", "yuv420p", "-bf", "0", "-g", "30", "-c:a", "libopus"])
    /// The same from MP4: an avcC record and 4-byte length-prefixed frames.
    static let h264AVCC = make("h264-avcc.mp4", video + ["-t", "2", "-c:v", "libx264", "-profile:v", "baseline",
                                                         "-pix_fmt", "yuv420p", "-bf", "0", "-g", "30"])
    /// H264 at a second size (Annex B, as h264Opus), for a resize in an MP4 recording.
    static let h264Large = make("h264-large.ts", ["-f", "lavfi", "-i", "testsrc=size=640x360:rate=30", "-t", "1",
                                                  "-c:v", "libx264", "-profile:v", "baseline", "-pix_fmt", "yuv420p",
                                                  "-bf", "0", "-g", "30"])
    /// VP8 at a second size, for a resize in the middle of a recording.
    static let vp8Large = make("vp8-large.webm", ["-f", "lavfi", "-i", "testsrc=size=640x360:rate=30", "-t", "1",
                                                  "-c:v", "libvpx", "-b:v", "500k"])
    static let opusStereo = make("opus.webm", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                                               "-t", "2", "-ac", "2", "-c:a", "libopus"])

    private static func make(_ name: String, _ arguments: [String]) -> String {
        let path = directory + "/" + name
        _ = try? MediaTools.run(MediaTools.ffmpeg, ["-nostdin", "-v", "error", "-y"] + arguments + [path])
        return path
    }
}
