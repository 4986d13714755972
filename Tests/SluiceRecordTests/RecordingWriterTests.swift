import Foundation
import Testing
@testable import SluiceRecord

/// Real encoded frames (demuxed from clips Debian's ffmpeg encodes) through RecordingWriter,
/// and the file checked by ffprobe, ffmpeg's decoder and mkvinfo.
@Suite(.enabled(if: MediaTools.available, "needs Debian's ffmpeg and ffprobe (scripts/install-deps.sh --test)"))
struct RecordingWriterTests {
    @Test func vp8AndOpusGiveAWebMThatDecodes() throws {
        let clip = try DemuxedClip(path: ReferenceClips.vp8Opus)
        try #require(clip.videoCodec == "vp8" && clip.audioChannels == 1)
        let video = RecordedVideoTrack(codec: .vp8, width: clip.width, height: clip.height)
        try roundTrip(clip, container: .webm, video: video, audio: RecordedAudioTrack(channels: 1),
                      expect: ("vp8", "opus"))
    }

    @Test func vp9AloneGivesAVideoOnlyWebM() throws {
        let clip = try DemuxedClip(path: ReferenceClips.vp9)
        try #require(clip.videoCodec == "vp9")
        let video = RecordedVideoTrack(codec: .vp9, width: clip.width, height: clip.height)
        try roundTrip(clip, container: .webm, video: video, audio: nil, expect: ("vp9", nil))
    }

    /// The extradata given is the bare sequence header OBU (the av1C's configOBUs), as the
    /// recorder has it from RTP; libavformat must build the av1C CodecPrivate from it.
    @Test func av1WithItsSequenceHeaderGivesAWebMThatDecodes() throws {
        let clip = try DemuxedClip(path: ReferenceClips.av1Opus)
        try #require(clip.videoCodec == "av1" && clip.videoExtradata.count > 4 && clip.videoExtradata[0] == 0x81)
        let sequenceHeader = Array(clip.videoExtradata.dropFirst(4))
        #expect(sequenceHeader[0] >> 3 & 0x0F == 1, "OBU type 1: the sequence header")
        let video = RecordedVideoTrack(codec: .av1, width: clip.width, height: clip.height, extradata: sequenceHeader)
        try roundTrip(clip, container: .webm, video: video, audio: RecordedAudioTrack(channels: 1),
                      expect: ("av1", "opus"))
    }

    /// Annex B frames and SPS+PPS (from MPEG-TS, as RTP gives them) into fragmented MP4.
    @Test func h264AndOpusGiveAFragmentedMP4ThatDecodes() throws {
        let clip = try DemuxedClip(path: ReferenceClips.h264Opus)
        try #require(clip.videoCodec == "h264" && clip.videoExtradata.starts(with: [0, 0, 0, 1]) ||
                     clip.videoExtradata.starts(with: [0, 0, 1]))
        let video = RecordedVideoTrack(codec: .h264, width: clip.width, height: clip.height,
                                       extradata: clip.videoExtradata)
        try roundTrip(clip, container: .mp4, video: video, audio: RecordedAudioTrack(channels: 1),
                      expect: ("h264", "opus")) { path in
            let boxes = try topLevelBoxes(path)
            #expect(boxes.prefix(2) == ["ftyp", "moov"], "an empty moov first: \(boxes.prefix(4))")
            #expect(boxes.filter { $0 == "moof" }.count >= 3, "a fragment about every second: \(boxes)")
            #expect(boxes.last == "mfra", "the trailer's fragment index, for seeking")
        }
    }

    @Test func h264FromAnAVCCRecordGivesAnMP4ThatDecodes() throws {
        let clip = try DemuxedClip(path: ReferenceClips.h264AVCC)
        try #require(clip.videoCodec == "h264" && clip.videoExtradata.first == 1, "an avcC record")
        let video = RecordedVideoTrack(codec: .h264, width: clip.width, height: clip.height,
                                       extradata: clip.videoExtradata)
        try roundTrip(clip, container: .mp4, video: video, audio: nil, expect: ("h264", nil))
    }

    /// A resize in WebM goes on in the same file: 320x240 VP8, then 640x360 from a key frame.
    /// Every frame decodes, and the decoder sees the new size.
    @Test func aVP8ResizeGoesOnInTheSameWebM() throws {
        let small = try DemuxedClip(path: ReferenceClips.vp8Opus)
        let large = try DemuxedClip(path: ReferenceClips.vp8Large)
        try #require(large.width == 640 && large.frames.first?.isKeyFrame == true)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.file("resize.webm")
        #expect(RecordingContainer.webm.carriesResizeInPlace && !RecordingContainer.mp4.carriesResizeInPlace)
        let writer = try RecordingWriter(path: path, container: .webm,
                                         video: RecordedVideoTrack(codec: .vp8, width: small.width, height: small.height),
                                         audio: nil)
        let smallVideo = small.frames.filter { $0.track == .video }
        // The large clip follows the small one on the same timeline, from 3 s.
        let timeline = smallVideo.map { ($0, Int64(0)) } + large.frames.map { ($0, Int64(3000)) }
        for (frame, offset) in timeline {
            try writer.write(frame.bytes, track: .video, ptsMillis: offset + frame.ptsMillis, isKeyFrame: frame.isKeyFrame)
        }
        let summary = try writer.close()
        #expect(summary.videoFrames == smallVideo.count + large.videoFrames)
        let decode = try MediaTools.decodeErrors(path)
        #expect(decode.status == 0 && decode.errors.isEmpty, "decode errors: \(decode.errors)")
        #expect(try MediaTools.decodedVideoFrames(path) == summary.videoFrames)
        let sizes = try MediaTools.run(MediaTools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                            "frame=width,height", "-of", "csv=p=0", path]).stdout
        #expect(sizes.contains("320,240") && sizes.contains("640,360"), "decoded sizes: \(Set(sizes.split(separator: "\n")))")
    }

    @Test func stereoOpusAloneGivesAnAudioOnlyWebM() throws {
        let clip = try DemuxedClip(path: ReferenceClips.opusStereo)
        try #require(clip.audioChannels == 2)
        try roundTrip(clip, container: .webm, video: nil, audio: RecordedAudioTrack(channels: 2), expect: (nil, "opus"))
    }

    /// The types of an MP4's top-level boxes, in order (ISO 14496-12: 32-bit size, then type).
    private func topLevelBoxes(_ path: String) throws -> [String] {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var boxes: [String] = []
        var offset = 0
        while offset + 8 <= data.count {
            let size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            boxes.append(String(decoding: data[offset + 4..<offset + 8], as: UTF8.self))
            guard size >= 8 else { break }
            offset += size
        }
        return boxes
    }

    /// The frames of `clip` through a writer; the file checked against the clip, then by `more`.
    private func roundTrip(_ clip: DemuxedClip, container: RecordingContainer, video: RecordedVideoTrack?,
                           audio: RecordedAudioTrack?, expect codecs: (video: String?, audio: String?),
                           sourceLocation: SourceLocation = #_sourceLocation,
                           more: (String) throws -> Void = { _ in }) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.file("rec." + container.fileExtension)
        let writer = try RecordingWriter(path: path, container: container, video: video, audio: audio)
        try clip.feed(writer)
        #expect(FileManager.default.fileExists(atPath: path + ".part"), sourceLocation: sourceLocation)
        let summary = try writer.close()
        #expect(!FileManager.default.fileExists(atPath: path + ".part"), "renamed on close", sourceLocation: sourceLocation)
        #expect(summary.path == path && summary.bytes > 0, sourceLocation: sourceLocation)
        #expect(summary.videoFrames == clip.videoFrames && summary.audioFrames == clip.audioFrames,
                sourceLocation: sourceLocation)

        let probe = try #require(try MediaTools.probe(path), "ffprobe reads the file", sourceLocation: sourceLocation)
        #expect(probe.stream("video")?["codec_name"] as? String == codecs.video, sourceLocation: sourceLocation)
        #expect(probe.stream("audio")?["codec_name"] as? String == codecs.audio, sourceLocation: sourceLocation)
        if let video {
            #expect(probe.stream("video")?["width"] as? Int == video.width, sourceLocation: sourceLocation)
            #expect(probe.stream("video")?["height"] as? Int == video.height, sourceLocation: sourceLocation)
        }
        if let audio {
            #expect(probe.stream("audio")?["channels"] as? Int == audio.channels, sourceLocation: sourceLocation)
            #expect(probe.stream("audio")?["sample_rate"] as? String == "48000", sourceLocation: sourceLocation)
        }
        let reference = Double(clip.durationMillis) / 1000
        #expect(abs(probe.durationSeconds - reference) <= 0.05 * reference,
                "duration \(probe.durationSeconds) s against the reference's \(reference) s", sourceLocation: sourceLocation)
        #expect(abs(Double(summary.durationMillis) / 1000 - reference) <= 0.05 * reference,
                "summary duration \(summary.durationMillis) ms", sourceLocation: sourceLocation)

        let decode = try MediaTools.decodeErrors(path)
        #expect(decode.status == 0 && decode.errors.isEmpty, "decode errors: \(decode.errors)", sourceLocation: sourceLocation)
        if video != nil {
            #expect(try MediaTools.decodedVideoFrames(path) == clip.videoFrames, "every frame written decodes",
                    sourceLocation: sourceLocation)
        }
        if container == .webm, MediaTools.mkvinfoAvailable {
            let info = try MediaTools.run(MediaTools.mkvinfo, ["--all", path])
            #expect(info.status == 0, "mkvinfo: \(info.stdout.suffix(400)) \(info.stderr)", sourceLocation: sourceLocation)
            #expect(info.stdout.contains("Cue point"), "the trailer wrote cues", sourceLocation: sourceLocation)
            #expect(info.stdout.contains("Duration"), sourceLocation: sourceLocation)
        }
        try more(path)
    }
}
