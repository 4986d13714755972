import Foundation
import SluiceMedia
import SluiceRecord
import SluiceVocabulary

/// Recording (docs/protocol.md section 6, **Recording**): a `publish` with `record: true`, or
/// the admin API's `POST /api/v1/streams/{name}/record`, gets a `RecordingRing` that the
/// stream's home worker fills (`WorkerStreams.startRecording`) and the recorder thread empties
/// (`Recorder`). A recording ends with its publisher (the worker closes the ring) or with
/// `stopRecording`; the recorder then closes the file.
extension MediaEngine {
    public static let recordingOff = "Recording is off (recording.folder is not set)"

    /// One recording, from its start until the recorder reports its end. Each has an id of
    /// its own (not the publisher's handle), so a stream stopped and recorded again never
    /// mixes the two files' events.
    struct Recording {
        var handle: StreamHandle
        var session: SessionID
        var stream: String
        var appKey: String
        /// Without the extension: the recorder picks it, and `-2`... when the name is taken.
        var basePath: String
        /// The file as the recorder opened it (after `recordingStarted`).
        var path: String?
        /// Asked to stop; the recorder has not closed the file yet.
        var stopping = false
    }

    /// The server has `recording.folder`: `record: true` is taken.
    public var recordingEnabled: Bool { recorder != nil }

    /// The folder recordings go to; nil without a recorder.
    public var recordingFolder: String? { recorder?.settings.folder }

    /// Refuses `record: true` on a server without a recorder, before any handle is made.
    func checkRecording(_ request: PublishRequest) throws(MediaError) {
        if request.record && recorder == nil { throw .limitReached(Self.recordingOff) }
    }

    func startRecording(_ handle: StreamHandle, request: PublishRequest, parameters: EndpointParameters, worker: Int) {
        guard request.record else { return }
        startRecording(handle, tracks: Self.recordingTracks(audio: parameters.audio, video: parameters.video),
                       session: request.session, stream: request.stream, appKey: request.appKey, worker: worker)
    }

    /// The admin API's start: records the stream's publisher from now on. 1008 without a
    /// recorder, 1004 without a publisher, 1003 (`streamNameInUse`) when it is being recorded.
    /// Returns the recording's path, without its extension.
    public func startRecording(stream: String, appKey: String) throws(MediaError) -> String {
        guard recorder != nil else { throw .limitReached(Self.recordingOff) }
        guard let entry = streams[stream], let handle = entry.publisher, let owner = handles[handle] else {
            throw .streamNotFound
        }
        if recording(of: handle) != nil { throw .streamNameInUse }
        let tracks = Self.recordingTracks(audio: entry.publisherTracks.audio, video: entry.publisherTracks.video)
        guard let id = startRecording(handle, tracks: tracks, session: owner.session, stream: stream,
                                      appKey: appKey, worker: owner.worker) else {
            throw .noCommonCodecs
        }
        return recordings[id]!.basePath
    }

    /// The admin API's stop: the recorder closes the file with what it has
    /// (`recordingStopped` follows). 1004 when the stream is not being recorded.
    public func stopRecording(stream: String) throws(MediaError) {
        guard let handle = streams[stream]?.publisher, let id = recording(of: handle),
              let worker = handles[handle]?.worker else { throw .streamNotFound }
        recordings[id]?.stopping = true
        let media = workerStreams[worker]
        workers[worker].execute { media.stopRecording(handle) }
    }

    /// The path of the stream's recording in progress (nil when there is none); the admin
    /// stream view shows it.
    public func recordingPath(stream: String) -> String? {
        guard let handle = streams[stream]?.publisher, let id = recording(of: handle) else { return nil }
        return recordings[id]?.path ?? recordings[id]?.basePath
    }

    /// The recording of `handle` that has not been asked to stop.
    private func recording(of handle: StreamHandle) -> String? {
        recordings.first { $0.value.handle == handle && !$0.value.stopping }?.key
    }

    @discardableResult
    private func startRecording(_ handle: StreamHandle, tracks: RecordingTracks, session: SessionID, stream: String,
                                appKey: String, worker: Int) -> String? {
        guard let recorder, tracks.audio != nil || tracks.video != nil else { return nil }
        nextRecording += 1
        let id = "rec-\(nextRecording)"
        let base = RecordingPaths.path(settings: recorder.settings, app: appKey, stream: stream, start: Date())
        recordings[id] = Recording(handle: handle, session: session, stream: stream, appKey: appKey, basePath: base)
        let ring = RecordingRing()
        recorder.start(id: id, ring: ring, tracks: tracks, path: base)
        let media = workerStreams[worker]
        let layer = recorder.settings.layer
        workers[worker].execute { media.startRecording(handle, ring: ring, layer: layer) }
        return id
    }

    static func recordingTracks(audio: TrackParameters?, video: TrackParameters?) -> RecordingTracks {
        func track(_ t: TrackParameters?) -> RecordingTracks.Track? {
            guard let t, let codec = RecordedCodec(codecName: t.codecName) else { return nil }
            return RecordingTracks.Track(codec: codec, payloadType: t.payloadType, clockRate: t.clockRate)
        }
        return RecordingTracks(audio: track(audio), video: track(video))
    }

    /// On the control thread, from `drainEvents`: the publisher hears of its recording while
    /// its handle lasts, the app's hooks always, and the server log has every one.
    func recordingEvent(_ event: RecordingEvent) {
        let (id, said) = EventWords.words(event)
        guard var recording = recordings[id] else { return }
        switch event {
        case .started(_, let path):
            // Also the next segment's file, after an MP4 resize.
            recording.path = path
            recordings[id] = recording
        case .stopped:
            recording.path = nil
            recordings[id] = recording
        case .failed:
            // Nothing more is written: the tap goes (its ring closes, and the recorder ends
            // the recording), and the stream is free to be recorded again.
            recording.stopping = true
            recordings[id] = recording
            if let worker = handles[recording.handle]?.worker {
                let media = workerStreams[worker]
                let handle = recording.handle
                workers[worker].execute { media.stopRecording(handle) }
            }
        case .ended:
            recordings[id] = nil
        }
        guard let words = said else { return }
        emitEvent(recording.handle, words)
        pending.append(.recording(RecordingNotice(session: recording.session, handle: recording.handle,
                                                  stream: recording.stream, appKey: recording.appKey,
                                                  type: words.type, data: words.data)))
        wakeup()
    }
}
