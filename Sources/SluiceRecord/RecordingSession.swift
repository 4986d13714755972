import Foundation
import SluiceMedia
import SluiceVocabulary

/// One recording on the recorder thread: its ring, a frame assembler per kind, the shared
/// timeline, and the file (opened at the first video key frame, or the first audio frame of
/// a stream without video). Every method runs on the recorder thread.
final class RecordingSession {
    let id: String
    let ring: RecordingRing
    let tracks: RecordingTracks
    /// Without the extension.
    let basePath: String
    private let settings: RecordingSettings
    private let events: @Sendable (RecordingEvent) -> Void
    private let log: @Sendable (String) -> Void

    private var audio: FrameAssembler?
    private var video: FrameAssembler?
    private var timeline: RecordingTimeline
    private var writer: RecordingWriter?
    private var path: String
    /// The recording ended early (disk full, a write error): the ring is still drained, so
    /// the worker never sees it full, but nothing more is written.
    private var failed = false

    init(id: String, ring: RecordingRing, tracks: RecordingTracks, path: String, settings: RecordingSettings,
         events: @escaping @Sendable (RecordingEvent) -> Void, log: @escaping @Sendable (String) -> Void) {
        self.id = id
        self.ring = ring
        self.tracks = tracks
        basePath = path
        self.path = path + "." + tracks.fileExtension
        self.settings = settings
        self.events = events
        self.log = log
        let wait = UInt64(max(0, settings.jitterMillis)) * 1000
        if let track = tracks.audio { audio = FrameAssembler(kind: .audio, codec: track.codec, maxWaitMicros: wait) }
        if let track = tracks.video { video = FrameAssembler(kind: .video, codec: track.codec, maxWaitMicros: wait) }
        timeline = RecordingTimeline(audioClockRate: Int(tracks.audio?.clockRate ?? 48_000),
                                     videoClockRate: Int(tracks.video?.clockRate ?? 90_000))
    }

    /// Takes what the worker handed over and writes the frames that are complete. False once
    /// the worker closed the ring and all of it is taken.
    func pump(now: UInt64) -> Bool {
        let closing = ring.closed.load(ordering: .acquiring)
        while let entry = ring.pop() {
            switch entry {
            case .clock(let kind, let ntp, let rtp):
                timeline.add(RecordedClockPair(kind: kind, ntp: ntp, rtpTimestamp: rtp))
            case .packet(let kind, let payloadType, let sequence, let timestamp, let marker, let payload, let arrival):
                let packet = RecordedPacket(kind: kind, sequenceNumber: sequence, timestamp: timestamp, marker: marker,
                                            payload: payload, arrivalMicros: arrival)
                if kind == .audio, payloadType == tracks.audio?.payloadType, audio != nil {
                    for frame in audio!.insert(packet, now: now) { write(frame) }
                } else if kind == .video, payloadType == tracks.video?.payloadType, video != nil {
                    for frame in video!.insert(packet, now: now) { write(frame) }
                }
            }
        }
        let at = closing ? UInt64.max : now
        if video != nil { for frame in video!.flush(now: at) { write(frame) } }
        if audio != nil { for frame in audio!.flush(now: at) { write(frame) } }
        // Asked again every second while the assembler waits for one (the publisher's
        // per-layer gate throttles the PLIs further).
        if video?.needsKeyFrame == true, now >= lastKeyFrameRequest + 1_000_000 {
            lastKeyFrameRequest = now
            ring.keyFrameWanted.store(true, ordering: .relaxed)
        }
        return !closing
    }

    private var lastKeyFrameRequest: UInt64 = 0
    /// A video frame was refused: the ones after it refer to it, so video waits for the next
    /// key frame (asked for at once) rather than decode broken up to it.
    private var videoWaitsForKeyFrame = false

    private func write(_ frame: AssembledFrame) {
        guard !failed else { return }
        if frame.kind == .video && videoWaitsForKeyFrame {
            guard frame.isKeyFrame else { return }
            videoWaitsForKeyFrame = false
        }
        if writer == nil {
            // Video opens the file at a key frame; audio before it has nothing to line up with.
            if tracks.video != nil && !(frame.kind == .video && frame.isKeyFrame) { return }
            guard open(at: frame) else { return }
        }
        guard writer != nil else { return }
        let millis = timeline.millis(kind: frame.kind, rtpTimestamp: frame.rtpTimestamp, arrivalMicros: frame.arrivalMicros)
        if let current = writer?.video, needsNewSegment(frame, current: current) {
            // A container that cannot carry the new size in place (MP4): this file is closed
            // and the next one starts at this key frame, at 0 (each segment plays alone).
            guard closeWriter(), open(at: frame) else { return }
            segmentOriginMillis = millis
        }
        guard let writer else { return }
        do {
            try writer.write(frame.data, track: frame.kind == .audio ? .audio : .video,
                             ptsMillis: millis - segmentOriginMillis, isKeyFrame: frame.isKeyFrame)
        } catch RecordingWriteError.timestampWentBack {
            // The timeline never goes back per track, so this is a safety net: audio drops the
            // frame alone; video skips to the next key frame.
            if frame.kind == .video {
                videoWaitsForKeyFrame = true
                ring.keyFrameWanted.store(true, ordering: .relaxed)
            }
            return
        } catch {
            fail(error)
        }
    }

    /// The timeline's time (ms) of the current file's first frame: its 0.
    private var segmentOriginMillis: Int64 = 0

    /// A video key frame whose size differs from the file's track, in a container that does
    /// not carry a resize in place (RecordingContainer): MP4's avcC holds the first SPS, and a
    /// changed one in the samples is not followed by every player.
    private func needsNewSegment(_ frame: AssembledFrame, current: RecordedVideoTrack) -> Bool {
        guard frame.kind == .video, frame.isKeyFrame, let writer, !writer.container.carriesResizeInPlace,
              let width = frame.width, let height = frame.height, width > 0, height > 0 else { return false }
        return width != current.width || height != current.height
    }

    private func open(at frame: AssembledFrame) -> Bool {
        path = RecordingPaths.unused(basePath, extension: tracks.fileExtension)
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            writer = try RecordingWriter(path: path, container: RecordingContainer(videoCodec: tracks.video?.codec),
                                         video: videoTrack(frame), audio: tracks.audio.map { RecordedAudioTrack(channels: $0.channels) })
        } catch {
            fail(error)
            return false
        }
        log("recording \(path): started")
        events(.started(id: id, path: path))
        return true
    }

    /// The video track as the first key frame shows it (nil for a stream without video).
    private func videoTrack(_ frame: AssembledFrame) -> RecordedVideoTrack? {
        guard let track = tracks.video, let video else { return nil }
        var extradata: [UInt8]?
        switch track.codec {
        case .h264:
            if let sets = video.h264ParameterSets { extradata = [0, 0, 0, 1] + sets.sps + [0, 0, 0, 1] + sets.pps }
        case .av1:
            extradata = video.av1SequenceHeaderOBU
        default:
            break
        }
        return RecordedVideoTrack(codec: track.codec, width: frame.width ?? 0, height: frame.height ?? 0, extradata: extradata)
    }

    private func fail(_ error: Error) {
        failed = true
        var reason = RecordingEvent.FailureReason.writeError
        if case .diskFull? = error as? RecordingWriteError { reason = .diskFull }
        log("recording \(path): failed (\(reason.rawValue)): \(error)")
        // Dropped: its deinit writes what it can and frees everything; the `.part` stays.
        writer = nil
        events(.failed(id: id, path: path, reason: reason, message: "\(error)"))
    }

    /// Closes the file: the trailer, then the final name.
    func finish() {
        _ = closeWriter()
    }

    /// Closes the current file and reports it (`stopped`); false when there was none or the
    /// close failed (then the recording has failed).
    private func closeWriter() -> Bool {
        guard let writer, !failed else { return false }
        self.writer = nil
        let dropped = ring.dropped.load(ordering: .relaxed)
        do {
            let summary = try writer.close()
            let figures = RecordingSummaryFigures(path: path, durationMillis: summary.durationMillis, bytes: summary.bytes,
                                                  codec: tracks.codecWord, damaged: dropped > 0)
            log("recording \(path): stopped, \(summary.durationMillis) ms, \(summary.bytes) bytes"
                + (dropped > 0 ? ", damaged (\(dropped) packets dropped)" : ""))
            events(.stopped(id: id, summary: figures))
            return true
        } catch {
            fail(error)
            return false
        }
    }
}
