import Foundation
@testable import SluiceControl
import SluiceMedia
import SluiceRecord
import SluiceTransport
import SluiceVocabulary
import Testing

/// Recordings' rules on their own: when a start is refused (1008, 1004, 1003), what a stop
/// frees, and what each recorder event tells the publisher and the hooks. The recorder is
/// real but its thread is not started: a test plays the recorder thread by calling the
/// `events` closure the part gave it, as that thread would.
@Suite(.serialized) final class RecordingsTests {
    let parts: ControlParts
    let folder: String
    let recorder: Recorder
    let recordings: Recordings

    init() throws {
        parts = try ControlParts()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-recordings-\(UUID())").path
        recorder = try Recorder(settings: RecordingSettings(folder: folder))
        recordings = Recordings(recorder: recorder, registry: parts.registry, pool: parts.pool, outbox: parts.outbox)
    }

    deinit {
        parts.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    func request(record: Bool) -> PublishRequest {
        var request = PublishRequest(session: "s1", stream: "cam", offer: "", constraints: StreamConstraints(video: nil))
        request.record = record
        request.appKey = "app"
        return request
    }

    /// (handle, type) of the publisher's stream events and (handle, type, appKey) of the
    /// hooks' notices queued so far.
    func told() -> (events: [String], notices: [String]) {
        var events: [String] = []
        var notices: [String] = []
        recordings.drainEvents()
        for event in parts.events() {
            switch event {
            case .streamEvent(_, let handle, _, let type, _, _): events.append("\(handle) \(type)")
            case .recording(let notice): notices.append("\(notice.handle) \(notice.type) \(notice.appKey)")
            default: break
            }
        }
        return (events, notices)
    }

    @Test func withoutARecorderNothingIsRecorded() throws {
        let off = Recordings(recorder: nil, registry: parts.registry, pool: parts.pool, outbox: parts.outbox)
        #expect(!off.enabled && off.folder == nil)
        #expect(throws: MediaError.limitReached(Recordings.off)) { try off.check(self.request(record: true)) }
        try off.check(request(record: false))
        parts.publish("cam")
        #expect(throws: MediaError.limitReached(Recordings.off)) { try off.start(stream: "cam", appKey: "app") }
        #expect(MediaEngine.recordingOff == Recordings.off)
    }

    /// The admin API's start: 1004 without a publisher, 1005 when none of its codecs can be
    /// recorded, 1003 while it is being recorded; the path is the template's under the folder.
    @Test func aStreamIsRecordedOnceAtATime() throws {
        #expect(recordings.enabled && recordings.folder == folder)
        #expect(throws: MediaError.streamNotFound) { try self.recordings.start(stream: "cam", appKey: "app") }
        parts.publish("silent", handle: "pub-0", tracks: nil)
        #expect(throws: MediaError.noCommonCodecs) { try self.recordings.start(stream: "silent", appKey: "app") }
        parts.publish("cam")
        let path = try recordings.start(stream: "cam", appKey: "app")
        #expect(path.hasPrefix(folder + "/app/cam/"))
        #expect(recordings.path(stream: "cam") == path)
        #expect(throws: MediaError.streamNameInUse) { try self.recordings.start(stream: "cam", appKey: "app") }
        #expect(recordings.count == 1 && recordings.open == 1, "handed to the recorder")
    }

    /// A stop frees the stream for another recording at once, before the recorder closes
    /// the file; a stream not being recorded has nothing to stop (1004).
    @Test func aStopFreesTheStream() throws {
        parts.publish("cam")
        #expect(throws: MediaError.streamNotFound) { try self.recordings.stop(stream: "cam") }
        _ = try recordings.start(stream: "cam", appKey: "app")
        try recordings.stop(stream: "cam")
        #expect(recordings.path(stream: "cam") == nil)
        _ = try recordings.start(stream: "cam", appKey: "app")
        #expect(recordings.count == 2, "the first lasts until the recorder says it ended")
        recorder.events(.ended(id: "rec-1"))
        _ = told()
        #expect(recordings.count == 1)
    }

    /// A publish with `record: true` starts one; without, none.
    @Test func aPublishRecordsWhenItAsks() throws {
        let handle = parts.publish("cam")
        let tracks = EdgeLinks.tracks(ControlParts.opus)
        let transport = TransportParameters(localUfrag: "l", localPassword: "l", remoteUfrag: "r", remotePassword: "r",
                                            remoteFingerprintAlgorithm: "sha-256", remoteFingerprint: "",
                                            dtlsRole: .server, consentTimeoutMicros: 0)
        let parameters = EndpointParameters(handle: handle, stream: "cam", role: .publish, audio: tracks.audio,
                                            video: nil, transport: transport)
        recordings.start(handle, request: request(record: false), parameters: parameters, worker: 0)
        #expect(recordings.path(stream: "cam") == nil)
        recordings.start(handle, request: request(record: true), parameters: parameters, worker: 0)
        #expect(recordings.path(stream: "cam")?.hasPrefix(folder + "/app/cam/") == true)
    }

    /// The publisher hears of its recording while its handle lasts, the hooks always; the
    /// path follows the file the recorder opened.
    @Test func recorderEventsReachThePublisherAndTheHooks() throws {
        let publisher = parts.publish("cam")
        _ = try recordings.start(stream: "cam", appKey: "app")
        recorder.events(.started(id: "rec-1", path: folder + "/app/cam/x.webm"))
        var said = told()
        #expect(said.events == ["\(publisher) recordingStarted"] && said.notices == ["\(publisher) recordingStarted app"])
        #expect(recordings.path(stream: "cam") == folder + "/app/cam/x.webm")

        _ = parts.registry.end(publisher, info: StatusInfo.user)
        _ = parts.events()
        let summary = RecordingSummaryFigures(path: folder + "/app/cam/x.webm", durationMillis: 1000, bytes: 10,
                                              codec: "opus", damaged: false)
        recorder.events(.stopped(id: "rec-1", summary: summary))
        recorder.events(.ended(id: "rec-1"))
        recorder.events(.started(id: "rec-9", path: "nobody's"))
        said = told()
        #expect(said.events.isEmpty && said.notices == ["\(publisher) recordingStopped app"])
        #expect(recordings.count == 0)
    }

    /// A failed recording stops its tap and frees the stream to be recorded again.
    @Test func aFailedRecordingFreesTheStream() throws {
        let publisher = parts.publish("cam")
        _ = try recordings.start(stream: "cam", appKey: "app")
        recorder.events(.failed(id: "rec-1", path: "x.webm", reason: .diskFull, message: "No space left on device"))
        #expect(told().events == ["\(publisher) recordingFailed"])
        #expect(recordings.path(stream: "cam") == nil)
        _ = try recordings.start(stream: "cam", appKey: "app")
    }
}
