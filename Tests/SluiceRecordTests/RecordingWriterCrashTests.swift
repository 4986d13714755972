import Foundation
import Testing
@testable import SluiceRecord

/// What a crash or a full disk leaves: a `.part` that plays up to near the cut, and the
/// `diskFull` error the recorder turns into `recordingFailed` `DISK_FULL`.
@Suite(.enabled(if: MediaTools.available, "needs Debian's ffmpeg and ffprobe (scripts/install-deps.sh --test)"))
struct RecordingWriterCrashTests {
    /// kill -9 in the middle: the first half of the `.part` as it is on disk before close
    /// (about 2 s of the 3 s clip are on disk then, the last cluster still in memory).
    /// The control, with libavformat's default cluster limits (5 s), has no frame on disk
    /// after the 3 s clip: the options are what make the cut file play.
    @Test func aWebMPartCutInHalfPlaysUpToNearTheCut() throws {
        let clip = try DemuxedClip(path: ReferenceClips.vp8Opus)
        let video = RecordedVideoTrack(codec: .vp8, width: clip.width, height: clip.height)
        let cut = try cutInHalf(clip, container: .webm, video: video, options: RecordingContainer.webm.muxerOptions)
        #expect(cut.packets > 0 && cut.lastSeconds >= 0.5, "cut file: \(cut)")
        // No format duration: the matroska muxer writes the Duration element only in the
        // trailer (a void reserves its place). The packets ffprobe reads are the duration.
        let control = try cutInHalf(clip, container: .webm, video: video, options: [])
        #expect(control.packets == 0, "control (default options) should lose everything: \(control)")
    }

    @Test func anMP4PartCutInHalfPlaysUpToNearTheCut() throws {
        let clip = try DemuxedClip(path: ReferenceClips.h264Opus)
        let video = RecordedVideoTrack(codec: .h264, width: clip.width, height: clip.height, extradata: clip.videoExtradata)
        let cut = try cutInHalf(clip, container: .mp4, video: video, options: RecordingContainer.mp4.muxerOptions)
        #expect(cut.packets > 0 && cut.lastSeconds >= 0.5, "cut file: \(cut)")
        #expect(cut.durationSeconds > 0)
        // Control: fragments only at key frames (every 30 frames here), as `frag_keyframe`
        // alone gives; WebRTC's key frames come seconds to minutes apart.
        let rare = try cutInHalf(clip, container: .mp4, video: video,
                                 options: [("movflags", "frag_keyframe+empty_moov+default_base_moof")], keyFramesEvery: 0)
        #expect(rare.packets == 0, "control (fragments at key frames only, one key frame) should lose everything: \(rare)")
    }

    /// A writer dropped without close: deinit writes the trailer, the file keeps `.part`.
    @Test func aWriterDroppedWithoutCloseLeavesAPlayablePart() throws {
        let clip = try DemuxedClip(path: ReferenceClips.vp8Opus)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.file("dropped.webm")
        do {
            let writer = try RecordingWriter(path: path, container: .webm,
                                             video: RecordedVideoTrack(codec: .vp8, width: clip.width, height: clip.height),
                                             audio: RecordedAudioTrack(channels: 1))
            try clip.feed(writer)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        let probe = try #require(try MediaTools.probe(path + ".part"))
        #expect(abs(probe.durationSeconds - Double(clip.durationMillis) / 1000) < 0.15)
        #expect(try MediaTools.decodedVideoFrames(path + ".part") == clip.videoFrames)
    }

    /// A 64 KiB tmpfs fills after about a second of the clip: a write (or the close) throws
    /// `diskFull`, later calls throw `failed`, and the `.part` holds what fit.
    @Test(.enabled(if: TinyDisk.canMount, "needs root to mount a 64 KiB tmpfs (mount -t tmpfs)"))
    func aFullDiskGivesDiskFull() throws {
        let clip = try DemuxedClip(path: ReferenceClips.vp8Opus)
        let disk = try TinyDisk()
        defer { disk.unmount() }
        let path = disk.path + "/full.webm"
        let writer = try RecordingWriter(path: path, container: .webm,
                                         video: RecordedVideoTrack(codec: .vp8, width: clip.width, height: clip.height),
                                         audio: RecordedAudioTrack(channels: 1))
        var failure: RecordingWriteError?
        // The clip over and over on one timeline until the disk is full (64 KiB is well under
        // the 4 rounds' ~360 KiB).
        rounds: for round in 0..<4 {
            for frame in clip.frames {
                do {
                    try writer.write(frame.bytes, track: frame.track, ptsMillis: Int64(round) * 3100 + frame.ptsMillis,
                                     isKeyFrame: frame.isKeyFrame)
                } catch let error as RecordingWriteError {
                    failure = error
                    break rounds
                }
            }
        }
        if failure == nil {
            #expect(throws: RecordingWriteError.diskFull(path: path + ".part")) { try writer.close() }
        } else {
            #expect(failure == .diskFull(path: path + ".part"))
            #expect(throws: RecordingWriteError.failed) { try writer.close() }
        }
        #expect(FileManager.default.fileExists(atPath: path + ".part") && !FileManager.default.fileExists(atPath: path))
    }

    struct Cut: CustomStringConvertible {
        var packets: Int
        var lastSeconds: Double
        var durationSeconds: Double
        var description: String { "\(packets) packets up to \(lastSeconds) s, duration \(durationSeconds) s" }
    }

    /// Writes the whole clip (key frames every `keyFramesEvery` frames, 0 for only the first),
    /// then copies the first half of the `.part` before close, as kill -9 would leave it.
    private func cutInHalf(_ clip: DemuxedClip, container: RecordingContainer, video: RecordedVideoTrack,
                           options: [(String, String)], keyFramesEvery: Int? = nil) throws -> Cut {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.file("cut." + container.fileExtension)
        let writer = try RecordingWriter(path: path, container: container, video: video,
                                         audio: RecordedAudioTrack(channels: 1), muxerOptions: options)
        var videoIndex = 0
        for frame in clip.frames {
            var key = frame.isKeyFrame
            if frame.track == .video, let every = keyFramesEvery {
                key = every == 0 ? videoIndex == 0 : videoIndex % every == 0
                videoIndex += 1
            }
            try writer.write(frame.bytes, track: frame.track, ptsMillis: frame.ptsMillis, isKeyFrame: key)
        }
        let part = try Data(contentsOf: URL(fileURLWithPath: path + ".part"))
        let cutPath = scratch.file("half." + container.fileExtension)
        try part.prefix(part.count / 2).write(to: URL(fileURLWithPath: cutPath))
        _ = try writer.close()
        let packets = try MediaTools.packets(cutPath)
        return Cut(packets: packets.count, lastSeconds: packets.lastSeconds,
                   durationSeconds: try MediaTools.probe(cutPath)?.durationSeconds ?? 0)
    }
}

/// A 64 KiB tmpfs for the full-disk test (root only; refused in an unprivileged container).
struct TinyDisk {
    let path: String

    static let canMount: Bool = {
        guard getuid() == 0, let disk = try? TinyDisk() else { return false }
        disk.unmount()
        return true
    }()

    init() throws {
        path = NSTemporaryDirectory() + "sluice-full-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mount = try MediaTools.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", path])
        guard mount.status == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    func unmount() {
        _ = try? MediaTools.run("/bin/umount", [path])
        try? FileManager.default.removeItem(atPath: path)
    }
}
