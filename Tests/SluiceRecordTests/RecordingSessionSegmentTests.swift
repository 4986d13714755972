import Foundation
import Synchronization
import Testing
@testable import SluiceMedia
@testable import SluiceRecord
import SluiceVocabulary

/// A resize in an H264 (MP4) recording: the session closes the file at the first key frame
/// of the new size and goes on in `<base>-2.mp4`, which starts at 0 (docs/recording.md,
/// "Resize"). Real x264 frames, packetized as RTP (single NAL units and FU-A) into the ring
/// the worker fills, through a RecordingSession as the recorder thread runs it.
/// Serialized: both tests keep their files under the same names (`rec.mp4`) in one folder.
@Suite(.serialized, .enabled(if: MediaTools.available, "needs Debian's ffmpeg and ffprobe (scripts/install-deps.sh --test)"))
struct RecordingSessionSegmentTests {
    static let payloadType: UInt8 = 102

    @Test func h264ResizeStartsANewMP4Segment() throws {
        let small = try DemuxedClip(path: ReferenceClips.h264Opus)
        let large = try DemuxedClip(path: ReferenceClips.h264Large)
        try #require((small.width, small.height) == (320, 240) && (large.width, large.height) == (640, 360))
        let run = try record([small, large])
        #expect(run.events.count == 4, "started, stopped, started, stopped: \(run.events)")
        let paths = run.startedPaths
        try #require(paths.count == 2, "two files: \(run.events)")
        #expect(paths[0].hasSuffix("/rec.mp4") && paths[1].hasSuffix("/rec-2.mp4"), "\(paths)")
        #expect(run.stoppedPaths == paths, "each file is closed and reported: \(run.events)")
        for (path, clip) in zip(paths, [small, large]) {
            #expect(!FileManager.default.fileExists(atPath: path + ".part"))
            let probe = try #require(try MediaTools.probe(path))
            let video = try #require(probe.stream("video"))
            #expect(video["codec_name"] as? String == "h264")
            #expect(video["width"] as? Int == clip.width && video["height"] as? Int == clip.height, "\(path): \(video)")
            #expect(try MediaTools.decodedVideoFrames(path) == clip.videoFrames, "\(path)")
            let decode = try MediaTools.decodeErrors(path)
            #expect(decode.status == 0 && decode.errors.isEmpty, "\(path): \(decode.errors)")
            // Each segment starts at 0, not where it sat on the recording's timeline.
            let start = Double(try #require(video["start_time"] as? String)) ?? -1
            #expect(start >= 0 && start < 0.05, "\(path) starts at \(start) s")
        }
    }

    /// The control: the same size twice (one clip, then it again) stays in one file.
    @Test func control_noResizeKeepsOneMP4() throws {
        let small = try DemuxedClip(path: ReferenceClips.h264Opus)
        let run = try record([small, small])
        #expect(run.startedPaths.count == 1 && run.stoppedPaths.count == 1, "\(run.events)")
        let path = try #require(run.startedPaths.first)
        #expect(try MediaTools.decodedVideoFrames(path) == 2 * small.videoFrames)
    }

    struct Run {
        var events: [RecordingEvent]
        var startedPaths: [String] {
            events.compactMap { if case .started(_, let path) = $0 { return path } else { return nil } }
        }
        var stoppedPaths: [String] {
            events.compactMap { if case .stopped(_, let summary) = $0 { return summary.path } else { return nil } }
        }
    }

    /// The clips' video frames one after the other on one RTP clock, through a session.
    private func record(_ clips: [DemuxedClip]) throws -> Run {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let events = Mutex<[RecordingEvent]>([])
        let ring = RecordingRing()
        let tracks = RecordingTracks(audio: nil, video: .init(codec: .h264, payloadType: Self.payloadType, clockRate: 90_000))
        let session = RecordingSession(id: "pub-1", ring: ring, tracks: tracks, path: scratch.file("rec"),
                                       settings: RecordingSettings(folder: scratch.path),
                                       events: { event in events.withLock { $0.append(event) } }, log: { _ in })
        var sequence: UInt16 = 1000
        var offsetMillis: Int64 = 0
        for clip in clips {
            let frames = clip.frames.filter { $0.track == .video }
            for frame in frames {
                let millis = offsetMillis + frame.ptsMillis
                let timestamp = UInt32(truncatingIfNeeded: 5_000 + millis * 90)
                let now = UInt64(1_000_000 + millis * 1_000)
                let packets = Self.packetize(frame.bytes)
                for (index, payload) in packets.enumerated() {
                    let taken = payload.withUnsafeBytes {
                        ring.push(kind: .video, payloadType: Self.payloadType, sequence: sequence, timestamp: timestamp,
                                  marker: index == packets.count - 1, payload: $0, now: now)
                    }
                    try #require(taken, "the ring took the packet")
                    sequence &+= 1
                }
                _ = session.pump(now: now)
            }
            offsetMillis += (frames.last?.ptsMillis ?? 0) + 33
        }
        ring.closed.store(true, ordering: .releasing)
        _ = session.pump(now: UInt64(1_000_000 + offsetMillis * 1_000))
        session.finish()
        // The files are checked before the scratch directory goes: copy the run out.
        let run = Run(events: events.withLock { $0 })
        for path in run.startedPaths where FileManager.default.fileExists(atPath: path) {
            try? FileManager.default.removeItem(atPath: Self.kept(path))
            try FileManager.default.copyItem(atPath: path, toPath: Self.kept(path))
        }
        return Run(events: run.events.map(Self.keptEvent))
    }

    private static let keptDirectory: String = {
        let path = NSTemporaryDirectory() + "sluice-record-segments-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    private static func kept(_ path: String) -> String { keptDirectory + "/" + (path as NSString).lastPathComponent }

    private static func keptEvent(_ event: RecordingEvent) -> RecordingEvent {
        switch event {
        case .started(let id, let path): return .started(id: id, path: kept(path))
        case .stopped(let id, var summary):
            summary.path = kept(summary.path)
            return .stopped(id: id, summary: summary)
        case .failed, .ended: return event
        }
    }

    /// Annex B access unit to RTP payloads (RFC 6184): a NAL unit up to 1,200 bytes as a
    /// single NAL unit packet, a larger one as FU-A fragments.
    static func packetize(_ accessUnit: [UInt8]) -> [[UInt8]] {
        var units: [[UInt8]] = []
        var start: Int?
        var i = 0
        while i + 2 < accessUnit.count {
            if accessUnit[i] == 0, accessUnit[i + 1] == 0, accessUnit[i + 2] == 1 {
                if let s = start {
                    var end = i
                    while end > s, accessUnit[end - 1] == 0 { end -= 1 }
                    units.append(Array(accessUnit[s..<end]))
                }
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        if let s = start, s < accessUnit.count { units.append(Array(accessUnit[s...])) }
        var payloads: [[UInt8]] = []
        for unit in units where !unit.isEmpty {
            if unit.count <= 1_200 {
                payloads.append(unit)
                continue
            }
            let indicator = (unit[0] & 0xE0) | 28
            var offset = 1
            while offset < unit.count {
                let end = min(offset + 1_200, unit.count)
                var header = unit[0] & 0x1F
                if offset == 1 { header |= 0x80 }
                if end == unit.count { header |= 0x40 }
                payloads.append([indicator, header] + unit[offset..<end])
                offset = end
            }
        }
        return payloads
    }
}
