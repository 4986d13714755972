import Foundation
import SluiceMedia
import SluiceRecord
import SluiceVocabulary

/// Recording (docs/protocol.md section 6, **Recording**): a `publish` with `record: true`, or
/// the admin API's `POST /api/v1/streams/{name}/record`, gets a `RecordingRing` that the
/// stream's home worker fills (`WorkerStreams.startRecording`) and the recorder thread empties
/// (`Recorder`). A recording ends with its publisher (the worker closes the ring) or with
/// `stop(stream:)`; the recorder then closes the file. Control thread.
final class Recordings {
    static let off = "Recording is off (recording.folder is not set)"
    /// Why an end-to-end encrypted stream is never recorded.
    static let encrypted = "an end-to-end encrypted stream cannot be recorded (the server could write only ciphertext)"

    /// One recording, from its start until the recorder reports its end. Each has an id of
    /// its own (not the publisher's handle), so a stream stopped and recorded again never
    /// mixes the two files' events.
    private struct Recording {
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

    /// The recorder thread; nil without `recording`.
    private let recorder: Recorder?
    /// Recordings in progress, by their own id.
    private var recordings: [String: Recording] = [:]
    /// Recordings that failed (a disk that refused, a muxer error), for `/metrics`.
    private(set) var failures: UInt64 = 0
    private var nextRecording = 0
    /// Filled by the recorder thread.
    private let events: Inbox<RecordingEvent>
    private let registry: StreamRegistry
    private let pool: WorkerPool
    private let outbox: Outbox

    /// `recorder` is made first, before any socket is bound; its thread runs from `run`.
    init(recorder: Recorder?, registry: StreamRegistry, pool: WorkerPool, outbox: Outbox) {
        self.recorder = recorder
        self.registry = registry
        self.pool = pool
        self.outbox = outbox
        let events = Inbox<RecordingEvent>(wake: { [weak outbox] in outbox?.wake() })
        self.events = events
        // Strong, as the data channels' report: the queue holds nothing back.
        recorder?.events = { [events] event in events.push(event) }
    }

    func run() { recorder?.run() }

    /// After the workers: every ring is closed, so each file gets what was handed over.
    func shutdown() { recorder?.shutdown() }

    /// The server has `recording.folder`: `record: true` is taken.
    var enabled: Bool { recorder != nil }

    /// The folder recordings go to; nil without a recorder.
    var folder: String? { recorder?.settings.folder }

    /// Refuses `record: true` on a server without a recorder, before any handle is made.
    func check(_ request: PublishRequest) throws(MediaError) {
        if request.record && request.e2ee { throw .limitReached(Self.encrypted) }
        if request.record && recorder == nil { throw .limitReached(Self.off) }
    }

    /// A publish with `record: true`, once its handle is in the registry.
    func start(_ handle: StreamHandle, request: PublishRequest, parameters: EndpointParameters, worker: Int) {
        guard request.record else { return }
        start(handle, tracks: Self.tracks(audio: parameters.audio, video: parameters.video),
              session: request.session, stream: request.stream, appKey: request.appKey, worker: worker)
    }

    /// The admin API's start: records the stream's publisher from now on. 1008 without a
    /// recorder, 1004 without a publisher, 1003 (`streamNameInUse`) when it is being recorded.
    /// Returns the recording's path, without its extension.
    func start(stream: String, appKey: String) throws(MediaError) -> String {
        guard recorder != nil else { throw .limitReached(Self.off) }
        guard let publisher = registry.publisher(of: stream) else { throw .streamNotFound }
        if recording(of: publisher.handle) != nil { throw .streamNameInUse }
        if publisher.tracks.video?.encrypted == true { throw .limitReached(Self.encrypted) }
        let tracks = Self.tracks(audio: publisher.tracks.audio, video: publisher.tracks.video)
        guard let id = start(publisher.handle, tracks: tracks, session: publisher.session, stream: stream,
                             appKey: appKey, worker: publisher.worker) else {
            throw .noCommonCodecs
        }
        return recordings[id]!.basePath
    }

    /// The admin API's stop: the recorder closes the file with what it has
    /// (`recordingStopped` follows). 1004 when the stream is not being recorded.
    func stop(stream: String) throws(MediaError) {
        guard let publisher = registry.publisher(of: stream), let id = recording(of: publisher.handle) else {
            throw .streamNotFound
        }
        recordings[id]?.stopping = true
        let handle = publisher.handle
        pool.run(on: publisher.worker) { $0.stopRecording(handle) }
    }

    /// The path of the stream's recording in progress (nil when there is none); the admin
    /// stream view shows it.
    func path(stream: String) -> String? {
        guard let handle = registry.publisher(of: stream)?.handle, let id = recording(of: handle) else { return nil }
        return recordings[id]?.path ?? recordings[id]?.basePath
    }

    /// The recording of `handle` that has not been asked to stop.
    private func recording(of handle: StreamHandle) -> String? {
        recordings.first { $0.value.handle == handle && !$0.value.stopping }?.key
    }

    @discardableResult
    private func start(_ handle: StreamHandle, tracks: RecordingTracks, session: SessionID, stream: String,
                       appKey: String, worker: Int) -> String? {
        guard let recorder, tracks.audio != nil || tracks.video != nil else { return nil }
        nextRecording += 1
        let id = "rec-\(nextRecording)"
        let base = RecordingPaths.path(settings: recorder.settings, app: appKey, stream: stream, start: Date())
        recordings[id] = Recording(handle: handle, session: session, stream: stream, appKey: appKey, basePath: base)
        let ring = RecordingRing()
        recorder.start(id: id, ring: ring, tracks: tracks, path: base)
        let layer = recorder.settings.layer
        pool.run(on: worker) { $0.startRecording(handle, ring: ring, layer: layer) }
        return id
    }

    static func tracks(audio: TrackParameters?, video: TrackParameters?) -> RecordingTracks {
        func track(_ t: TrackParameters?) -> RecordingTracks.Track? {
            guard let t, let codec = RecordedCodec(codecName: t.codecName) else { return nil }
            return RecordingTracks.Track(codec: codec, payloadType: t.payloadType, clockRate: t.clockRate)
        }
        return RecordingTracks(audio: track(audio), video: track(video))
    }

    /// From `drainEvents`: what the recorder thread reported since.
    func drainEvents() {
        for event in events.takeAll() { recordingEvent(event) }
    }

    /// The publisher hears of its recording while its handle lasts, the app's hooks always,
    /// and the server log has every one.
    private func recordingEvent(_ event: RecordingEvent) {
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
            failures += 1
            // Nothing more is written: the tap goes (its ring closes, and the recorder ends
            // the recording), and the stream is free to be recorded again.
            recording.stopping = true
            recordings[id] = recording
            if let worker = registry.worker(of: recording.handle) {
                let handle = recording.handle
                pool.run(on: worker) { $0.stopRecording(handle) }
            }
        case .ended:
            recordings[id] = nil
        }
        guard let words = said else { return }
        registry.emitEvent(recording.handle, words)
        outbox.post(.recording(RecordingNotice(session: recording.session, handle: recording.handle,
                                               stream: recording.stream, appKey: recording.appKey,
                                               type: words.type, data: words.data)))
    }

    var count: Int { recordings.count }
    var queuedEvents: Int { events.count }
    /// What the recorder has open (or handed over and not opened yet).
    var open: Int { recorder?.openRecordings ?? 0 }
}
