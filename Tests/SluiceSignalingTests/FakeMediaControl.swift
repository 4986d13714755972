import SluiceControl
import SluiceMedia
import SluiceVocabulary

/// A media engine stand-in: hands out handles, queues the statuses the real one would,
/// and records every call.
final class FakeMediaControl: MediaControl, @unchecked Sendable {
    var wakeup: @Sendable () -> Void = {}
    var events: [MediaEvent] = []
    var publishError: MediaError?
    var playError: MediaError?
    private(set) var publishRequests: [PublishRequest] = []
    private(set) var playRequests: [PlayRequest] = []
    private(set) var stoppedHandles: [StreamHandle] = []
    private(set) var endedSessions: [SessionID] = []
    private var handles: [StreamHandle: (session: SessionID, stream: String, role: StreamRole)] = [:]
    private var nextHandle = 1

    func publish(_ request: PublishRequest) throws(MediaError) -> MediaAnswer {
        publishRequests.append(request)
        if let publishError { throw publishError }
        return makeHandle(session: request.session, stream: request.stream, role: .publish)
    }

    func play(_ request: PlayRequest) throws(MediaError) -> MediaAnswer {
        playRequests.append(request)
        if let playError { throw playError }
        return makeHandle(session: request.session, stream: request.stream, role: .play)
    }

    private func makeHandle(session: SessionID, stream: String, role: StreamRole) -> MediaAnswer {
        let handle = "h\(nextHandle)"
        nextHandle += 1
        handles[handle] = (session, stream, role)
        events.append(.streamStatus(session: session, handle: handle, stream: stream, role: role,
                                    status: .pending, info: nil, ends: false))
        wakeup()
        return MediaAnswer(handle: handle, sdp: "v=0\r\nanswer-for-\(handle)\r\n")
    }

    func stop(handle: StreamHandle) throws(MediaError) {
        guard let record = handles.removeValue(forKey: handle) else { throw .unknownHandle }
        stoppedHandles.append(handle)
        events.append(.streamStatus(session: record.session, handle: handle, stream: record.stream, role: record.role,
                                    status: record.role == .publish ? .unpublished : .stopped,
                                    info: StatusInfo.user, ends: true))
    }

    func stats(handle: StreamHandle) throws(MediaError) -> HandleStats {
        guard let record = handles[handle] else { throw .unknownHandle }
        var video = KindStats()
        video.packets = 10
        video.width = 640
        video.layer = 1
        video.codec = "VP8"
        return HandleStats(handle: handle, stream: record.stream, role: record.role, audio: KindStats(), video: video)
    }

    func requestKeyFrame(handle: StreamHandle) throws(MediaError) {
        guard handles[handle] != nil else { throw .unknownHandle }
    }

    private(set) var updates: [(StreamHandle, StreamConstraints)] = []
    private(set) var mutes: [(StreamHandle, MediaKind, Bool)] = []
    var muteError: MediaError?

    func update(handle: StreamHandle, constraints: StreamConstraints) throws(MediaError) {
        guard handles[handle] != nil else { throw .unknownHandle }
        updates.append((handle, constraints))
    }

    func setMuted(handle: StreamHandle, kind: MediaKind, muted: Bool) throws(MediaError) {
        guard handles[handle] != nil else { throw .unknownHandle }
        if let muteError { throw muteError }
        mutes.append((handle, kind, muted))
    }

    private(set) var serverMutes: [(String, MediaKind, Bool)] = []

    func setServerMuted(stream: String, kind: MediaKind, muted: Bool) throws(MediaError) {
        guard handles.values.contains(where: { $0.stream == stream && $0.role == .publish }) else { throw .streamNotFound }
        serverMutes.append((stream, kind, muted))
    }

    func endSession(_ session: SessionID) {
        endedSessions.append(session)
        for (handle, record) in handles.sorted(by: { $0.key < $1.key }) where record.session == session {
            handles[handle] = nil
            events.append(.streamStatus(session: session, handle: handle, stream: record.stream, role: record.role,
                                        status: record.role == .publish ? .unpublished : .stopped,
                                        info: StatusInfo.sessionDisconnect, ends: true))
        }
    }

    func drainEvents(_ body: (MediaEvent) -> Void) {
        let queued = events
        events = []
        queued.forEach(body)
    }

    func shutdown() {}

    private(set) var precallRequests: [PrecallRequest] = []
    var precallError: MediaError?

    /// A pre-call handle; its events are whatever a test appends to `events`.
    func precall(_ request: PrecallRequest) throws(MediaError) -> MediaAnswer {
        precallRequests.append(request)
        if let precallError { throw precallError }
        let handle = "pc\(nextHandle)"
        nextHandle += 1
        return MediaAnswer(handle: handle, sdp: "v=0\r\nanswer-for-\(handle)\r\n")
    }
    /// As a server with `recording.folder` (the refusal without one: interop/test_recording.py).
    var recordingEnabled = true
}
