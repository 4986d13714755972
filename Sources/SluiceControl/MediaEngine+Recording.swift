import Foundation
import SluiceMedia
import SluiceRecord
import SluiceVocabulary

/// Recording (docs/protocol.md section 6, **Recording**): a `publish` with `record: true`
/// gets a `RecordingRing` that the stream's home worker fills (`WorkerStreams.startRecording`)
/// and the recorder thread empties (`Recorder`). The recording ends with the publisher: the
/// worker closes the ring, and the recorder closes the file.
extension MediaEngine {
    public static let recordingOff = "Recording is off (recording.folder is not set)"

    /// The server has `recording.folder`: `record: true` is taken.
    public var recordingEnabled: Bool { recorder != nil }

    /// Refuses `record: true` on a server without a recorder, before any handle is made.
    func checkRecording(_ request: PublishRequest) throws(MediaError) {
        if request.record && recorder == nil { throw .limitReached(Self.recordingOff) }
    }

    func startRecording(_ handle: StreamHandle, request: PublishRequest, parameters: EndpointParameters, worker: Int) {
        guard request.record, let recorder else { return }
        let tracks = Self.recordingTracks(parameters)
        guard tracks.audio != nil || tracks.video != nil else { return }
        let ring = RecordingRing()
        let path = RecordingPaths.path(settings: recorder.settings, app: request.appKey, stream: request.stream, start: Date())
        recordings[handle] = path
        recorder.start(id: handle, ring: ring, tracks: tracks, path: path)
        let media = workerStreams[worker]
        workers[worker].execute { media.startRecording(handle, ring: ring) }
    }

    static func recordingTracks(_ parameters: EndpointParameters) -> RecordingTracks {
        func track(_ t: TrackParameters?) -> RecordingTracks.Track? {
            guard let t, let codec = RecordedCodec(codecName: t.codecName) else { return nil }
            return RecordingTracks.Track(codec: codec, payloadType: t.payloadType, clockRate: t.clockRate)
        }
        return RecordingTracks(audio: track(parameters.audio), video: track(parameters.video))
    }

    /// On the control thread, from `drainEvents`: the publisher hears of its recording while
    /// its handle lasts; the server log has every one.
    func recordingEvent(_ event: RecordingEvent) {
        let (handle, words) = EventWords.words(event)
        switch event {
        case .started: break
        case .stopped, .failed: recordings[handle] = nil
        }
        emitEvent(handle, words)
    }
}
