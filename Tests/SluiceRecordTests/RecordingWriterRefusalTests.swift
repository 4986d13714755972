import Foundation
import Testing
@testable import SluiceRecord

/// What the writer refuses, with the error the recorder acts on.
@Suite(.enabled(if: MediaTools.available, "needs Debian's ffmpeg and ffprobe (scripts/install-deps.sh --test)"))
struct RecordingWriterRefusalTests {
    @Test func aBackwardsTimestampIsRefusedAndTheWriterGoesOn() throws {
        let clip = try DemuxedClip(path: ReferenceClips.vp8Opus)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let writer = try RecordingWriter(path: scratch.file("a.webm"), container: .webm,
                                         video: RecordedVideoTrack(codec: .vp8, width: clip.width, height: clip.height),
                                         audio: RecordedAudioTrack(channels: 1))
        let videoFrames = clip.frames.filter { $0.track == .video }
        let first = videoFrames[0], second = videoFrames[1]
        try writer.write(first.bytes, track: .video, ptsMillis: 100, isKeyFrame: true)
        #expect(throws: RecordingWriteError.timestampWentBack(track: .video, previousMillis: 100, gotMillis: 99)) {
            try writer.write(second.bytes, track: .video, ptsMillis: 99, isKeyFrame: false)
        }
        #expect(throws: RecordingWriteError.timestampWentBack(track: .video, previousMillis: 100, gotMillis: 100)) {
            try writer.write(second.bytes, track: .video, ptsMillis: 100, isKeyFrame: false)
        }
        #expect(throws: RecordingWriteError.timestampWentBack(track: .audio, previousMillis: -1, gotMillis: -5)) {
            try writer.write([0xF8, 0xFF, 0xFE], track: .audio, ptsMillis: -5, isKeyFrame: true)
        }
        // Each track has its own clock: audio earlier than the last video frame is fine.
        try writer.write(clip.frames.first { $0.track == .audio }!.bytes, track: .audio, ptsMillis: 90, isKeyFrame: true)
        try writer.write(second.bytes, track: .video, ptsMillis: 133, isKeyFrame: false)
        let summary = try writer.close()
        #expect(summary.videoFrames == 2 && summary.audioFrames == 1)
        #expect(try MediaTools.decodedVideoFrames(summary.path) == 2)
    }

    @Test func aTrackTheContainerCannotCarryIsRefusedAtOpen() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let webm = scratch.file("b.webm")
        #expect(throws: RecordingWriteError.unsupportedTrack("h264 video in webm")) {
            try RecordingWriter(path: webm, container: .webm, video: RecordedVideoTrack(codec: .h264, width: 2, height: 2,
                                                                                        extradata: [0, 0, 0, 1, 0x67]),
                                audio: nil)
        }
        #expect(throws: RecordingWriteError.unsupportedTrack("h264 without its extradata")) {
            try RecordingWriter(path: scratch.file("b.mp4"), container: .mp4,
                                video: RecordedVideoTrack(codec: .h264, width: 2, height: 2), audio: nil)
        }
        #expect(throws: RecordingWriteError.unsupportedTrack("3 Opus channels")) {
            try RecordingWriter(path: webm, container: .webm, video: nil, audio: RecordedAudioTrack(channels: 3))
        }
        #expect(throws: RecordingWriteError.unsupportedTrack("no track")) {
            try RecordingWriter(path: webm, container: .webm, video: nil, audio: nil)
        }
        #expect(!FileManager.default.fileExists(atPath: webm + ".part"), "nothing opened for a refused track")
    }

    @Test func aFrameForATrackNotOpenedIsRefused() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let writer = try RecordingWriter(path: scratch.file("c.webm"), container: .webm, video: nil,
                                         audio: RecordedAudioTrack(channels: 1))
        #expect(throws: RecordingWriteError.unknownTrack(.video)) {
            try writer.write([1, 2, 3], track: .video, ptsMillis: 0, isKeyFrame: true)
        }
        _ = try writer.close()
        #expect(throws: RecordingWriteError.failed) { try writer.close() }
    }

    @Test func anUnwritableFolderGivesLibavsMessage() throws {
        let error = #expect(throws: RecordingWriteError.self) {
            try RecordingWriter(path: "/nonexistent-sluice-dir/x.webm", container: .webm, video: nil,
                                audio: RecordedAudioTrack(channels: 1))
        }
        guard case .libav(let call, _, let message)? = error else {
            Issue.record("expected a libav error, got \(String(describing: error))")
            return
        }
        #expect(call == "avio_open" && message.contains("No such file"))
    }
}
