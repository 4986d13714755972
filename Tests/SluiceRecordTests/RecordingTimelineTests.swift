import SluiceWire
import Testing
import SluiceVocabulary
@testable import SluiceRecord

@Suite struct RecordingTimelineTests {
    /// NTP 32.32 of `micros` after an arbitrary epoch second.
    func ntp(_ micros: Int64) -> UInt64 {
        let total = 3_900_000_000 * 1_000_000 + micros
        return UInt64(total / 1_000_000) << 32 | UInt64(((total % 1_000_000) << 32) / 1_000_000)
    }

    @Test func audioAndVideoFromTheSameNTPInstantsLineUp() {
        var timeline = RecordingTimeline()
        // The publisher's clocks: audio RTP starts at 1000, video at 4_000_000_000 (it wraps
        // after 3.3 s), both at NTP 0; each arrives with its own network delay.
        let audioBase: UInt32 = 1000
        let videoBase: UInt32 = 4_000_000_000
        timeline.add(RecordedClockPair(kind: .audio, ntp: ntp(0), rtpTimestamp: audioBase))
        timeline.add(RecordedClockPair(kind: .video, ntp: ntp(0), rtpTimestamp: videoBase))
        var videoUnwrapper = TimestampUnwrapper()
        var audioUnwrapper = TimestampUnwrapper()
        for second in stride(from: Int64(0), through: 8_000, by: 500) {  // ms of capture
            let audioRTP = audioBase &+ UInt32(second * 48)
            let videoRTP = videoBase &+ UInt32(second * 90)
            let a = timeline.millis(kind: .audio, rtpTimestamp: audioUnwrapper.unwrap(audioRTP),
                                    arrivalMicros: UInt64(5_000_000 + second * 1000 + 20_000))
            let v = timeline.millis(kind: .video, rtpTimestamp: videoUnwrapper.unwrap(videoRTP),
                                    arrivalMicros: UInt64(5_000_000 + second * 1000 + 70_000))
            #expect(abs(a - v) <= 1, "at \(second) ms: audio \(a) video \(v)")
            #expect(a == second)
        }
    }

    @Test func aLaterReportCorrectsTheOtherTrackOntoTheSameClock() {
        var timeline = RecordingTimeline()
        // Video alone first, by arrival; then both reports; audio's frames land where video's
        // frames of the same instant are.
        let first = timeline.millis(kind: .video, rtpTimestamp: 0, arrivalMicros: 1_000_000)
        #expect(first == 0)
        timeline.add(RecordedClockPair(kind: .video, ntp: ntp(0), rtpTimestamp: 0))
        timeline.add(RecordedClockPair(kind: .audio, ntp: ntp(0), rtpTimestamp: 77_777))
        let v = timeline.millis(kind: .video, rtpTimestamp: 90_000, arrivalMicros: 2_050_000)
        let a = timeline.millis(kind: .audio, rtpTimestamp: 77_777 + 48_000, arrivalMicros: 2_000_000)
        #expect(v == 1000 && a == 1000)
    }

    @Test func muteLeavesAGap() {
        var timeline = RecordingTimeline()
        // Before any report: by arrival then RTP.
        #expect(timeline.millis(kind: .video, rtpTimestamp: 0, arrivalMicros: 10_000_000) == 0)
        #expect(timeline.millis(kind: .video, rtpTimestamp: 90_000, arrivalMicros: 11_000_000) == 1000)
        // 3 s without packets, then the next frame: 3 s later in RTP and in the file.
        #expect(timeline.millis(kind: .video, rtpTimestamp: 90_000 * 4, arrivalMicros: 14_000_000) == 4000)
        // With reports the same holds.
        timeline.add(RecordedClockPair(kind: .video, ntp: ntp(0), rtpTimestamp: 0))
        #expect(timeline.millis(kind: .video, rtpTimestamp: 90_000 * 8, arrivalMicros: 18_000_000) == 8000)
    }

    @Test func neverGoesBackwardsOnATrack() {
        var timeline = RecordingTimeline()
        #expect(timeline.millis(kind: .audio, rtpTimestamp: 48_000, arrivalMicros: 1_000_000) == 0)
        #expect(timeline.millis(kind: .audio, rtpTimestamp: 96_000, arrivalMicros: 2_000_000) == 1000)
        timeline.add(RecordedClockPair(kind: .audio, ntp: ntp(0), rtpTimestamp: 96_000))
        #expect(timeline.millis(kind: .audio, rtpTimestamp: 96_960, arrivalMicros: 2_020_000) == 1020)
        // A later report that would put the track 500 ms earlier is not used: no step.
        timeline.add(RecordedClockPair(kind: .audio, ntp: ntp(-500_000), rtpTimestamp: 96_000))
        #expect(timeline.millis(kind: .audio, rtpTimestamp: 97_920, arrivalMicros: 2_040_000) == 1040)
        // A frame older than the last one written goes 1 ms after it, not back (nor onto it).
        #expect(timeline.millis(kind: .audio, rtpTimestamp: 96_960, arrivalMicros: 2_060_000) == 1041)
        #expect(timeline.millis(kind: .audio, rtpTimestamp: 96_000 + 48_000, arrivalMicros: 3_000_000) == 2000)
    }

    /// What an aiortc publisher did in interop/test_recording_sync.py: video's first frame, a
    /// key frame, came ~60 ms late against audio, so before any report video was anchored
    /// late; audio's report came first and tied NTP to audio; video's own report would then
    /// put video ~60 ms back. Held at the previous time, the next frame got the same
    /// millisecond and the writer refused it (VP8 decoded on without it: a broken picture up to
    /// the next key frame); put 1 ms after it, two frames share a slot of a player's 30 fps
    /// grid (ffmpeg: "non monotonically increasing dts"). So video goes on at its own pace and
    /// audio moves forward instead, and the two are together again.
    /// (The other way round, video early against audio, is `videoKeepsItsPaceWhenAudioMustGoBack`.)
    @Test func aLateAnchoredTrackDoesNotStepBackAtItsReport() {
        var timeline = RecordingTimeline()
        let audioBase: Int64 = 5_000, videoBase: Int64 = 700_000
        // Capture instant c (ms) of both tracks: audio arrives at 1 s + c + 2 ms, video's first
        // frame at 1 s + c + 60 ms (the key frame), later ones at 1 s + c + 2 ms.
        func audio(_ c: Int64) -> Int64 {
            timeline.millis(kind: .audio, rtpTimestamp: audioBase + c * 48, arrivalMicros: UInt64(1_000_000 + (c + 2) * 1000))
        }
        func video(_ frame: Int64) -> Int64 {
            let c = frame * 100 / 3
            return timeline.millis(kind: .video, rtpTimestamp: videoBase + frame * 3000,
                                   arrivalMicros: UInt64(1_000_000 + (c + (frame == 0 ? 60 : 2)) * 1000))
        }
        var videoTimes = [video(0)]
        var audioTimes = [audio(0)]
        for frame in Int64(1)..<30 {
            videoTimes.append(video(frame))
            audioTimes.append(audio(frame * 100 / 3))
        }
        // The reports: both at NTP 1 s for capture instant 1000 ms; audio's is used first.
        timeline.add(RecordedClockPair(kind: .audio, ntp: ntp(1_000_000), rtpTimestamp: UInt32(audioBase + 48_000)))
        audioTimes.append(audio(1000))
        timeline.add(RecordedClockPair(kind: .video, ntp: ntp(1_000_000), rtpTimestamp: UInt32(videoBase + 90_000)))
        for frame in Int64(30)..<45 { videoTimes.append(video(frame)) }
        // Video at its own 30 fps all along: every step 33 or 34 ms.
        let steps = zip(videoTimes, videoTimes.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 == 33 || $0 == 34 }, "video times \(videoTimes)")
        // Audio jumped forward, never back, and the same capture instant is at the same time.
        #expect(zip(audioTimes, audioTimes.dropFirst()).allSatisfy { $0 < $1 }, "audio times \(audioTimes)")
        #expect(abs(video(60) - audio(2000)) <= 1)
    }

    /// Audio's first frame came 40 ms late (video on time), audio's report is used first, then
    /// video's: video still goes on at its 30 fps from 0 (a forward step would move it off the
    /// grid of its first frame), audio goes back by 40 ms over a few frames 1 ms apart, never
    /// onto or before the last, and the same capture instant is then at the same time.
    @Test func videoKeepsItsPaceWhenAudioMustGoBack() {
        var timeline = RecordingTimeline()
        let audioBase: Int64 = 9_000, videoBase: Int64 = 123_456
        func audio(_ c: Int64, late: Bool = false) -> Int64 {
            timeline.millis(kind: .audio, rtpTimestamp: audioBase + c * 48,
                            arrivalMicros: UInt64(1_000_000 + (c + (late ? 42 : 2)) * 1000))
        }
        func video(_ frame: Int64) -> Int64 {
            timeline.millis(kind: .video, rtpTimestamp: videoBase + frame * 3000,
                            arrivalMicros: UInt64(1_000_000 + (frame * 100 / 3 + 2) * 1000))
        }
        var videoTimes = [video(0)]
        var audioTimes = [audio(0, late: true)]
        for frame in Int64(1)..<30 {
            videoTimes.append(video(frame))
            audioTimes.append(audio(frame * 20))
        }
        timeline.add(RecordedClockPair(kind: .audio, ntp: ntp(1_000_000), rtpTimestamp: UInt32(audioBase + 48_000)))
        for c in stride(from: Int64(600), to: 1000, by: 20) { audioTimes.append(audio(c)) }
        timeline.add(RecordedClockPair(kind: .video, ntp: ntp(1_000_000), rtpTimestamp: UInt32(videoBase + 90_000)))
        for frame in Int64(30)..<45 {
            videoTimes.append(video(frame))
            audioTimes.append(audio(1000 + (frame - 30) * 20))
        }
        let steps = zip(videoTimes, videoTimes.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 == 33 || $0 == 34 }, "video times \(videoTimes)")
        #expect(zip(audioTimes, audioTimes.dropFirst()).allSatisfy { $0 < $1 }, "audio times \(audioTimes)")
        #expect(abs(video(60) - audio(2000)) <= 1)
    }

    @Test func ntpFixedPointToMicros() {
        #expect(RecordingTimeline.micros(ntp: 1 << 32 | 0x8000_0000) == 1_500_000)
    }
}
