import SluiceDataChannel
import SluiceVocabulary

/// What the admin API, /metrics and the cluster's control channel ask of the engine, answered
/// by the part that owns it. Control thread.
extension MediaEngine {
    // MARK: Streams

    /// Every stream with its publisher, players and mute state, for the admin API.
    public func streamViews() -> [StreamView] {
        registry.streamNames.compactMap { registry.streamView($0) }
    }

    public func streamView(_ name: String) -> StreamView? {
        registry.streamView(name)
    }

    /// Ends a stream's publisher from the admin API ("Stopped by rest /terminate").
    public func terminate(stream: String) throws(MediaError) {
        guard let publisher = registry.publisher(of: stream)?.handle else { throw .streamNotFound }
        end(publisher, info: StatusInfo.restTerminate)
    }

    /// Every handle's data channels, with its stream and role (for /metrics).
    public func allDataChannelStats() -> [(handle: StreamHandle, stream: String, role: StreamRole, channels: [DataChannelStats])] {
        routes.allStats()
    }

    // MARK: Recording

    public static let recordingOff = Recordings.off
    /// The refusal of a recording of an end-to-end encrypted stream (1008; admin API 409 `E2EE_STREAM`).
    public static let encryptedNotRecorded = Recordings.encrypted

    /// The server has `recording.folder`: `record: true` is taken.
    public var recordingEnabled: Bool { recordings.enabled }

    /// The folder recordings go to; nil without a recorder.
    public var recordingFolder: String? { recordings.folder }

    /// The admin API's start: records the stream's publisher from now on. 1008 without a
    /// recorder, 1004 without a publisher, 1003 (`streamNameInUse`) when it is being recorded.
    /// Returns the recording's path, without its extension.
    public func startRecording(stream: String, appKey: String) throws(MediaError) -> String {
        try recordings.start(stream: stream, appKey: appKey)
    }

    /// The admin API's stop: the recorder closes the file with what it has
    /// (`recordingStopped` follows). 1004 when the stream is not being recorded.
    public func stopRecording(stream: String) throws(MediaError) {
        try recordings.stop(stream: stream)
    }

    /// The path of the stream's recording in progress (nil when there is none); the admin
    /// stream view shows it.
    public func recordingPath(stream: String) -> String? {
        recordings.path(stream: stream)
    }

    // MARK: Relay links

    /// A link of `request.stream` to the edge that asks (this node is its origin).
    public func openLink(_ request: LinkRequest) throws(MediaError) -> LinkAnswer {
        try origin.open(request)
    }

    /// The edge no longer wants the link (or it failed).
    public func closeLink(_ link: String) {
        origin.close(link)
    }

    /// The links this node serves as an origin.
    public var linkViews: [LinkView] { origin.views }

    /// The codecs of a stream published on this node (for the cluster's stream record).
    public func codecs(of stream: String) -> StreamCodecs? { origin.codecs(of: stream) }

    /// What this node's links sent as an origin (for /metrics).
    public var linkPackets: LinkPacketFigures { origin.packets }

    /// The links this node holds as an edge, by stream (only those that are up).
    public var edgeLinks: [String: String] { edge.upLinks }

    /// The links this node holds as an edge, per video layer.
    public var edgeLinkLayerPackets: [LinkLayerPackets] { edge.layerPackets }

    /// From the control thread after each heartbeat's snapshot and once a second
    /// (`EdgeLinks.checkRemoteStreams`).
    public func checkRemoteStreams() { edge.checkRemoteStreams() }

    // MARK: Tables

    /// The size of every table the media side keeps per session, handle, stream, recording,
    /// pre-call test and link, for `GET /api/v1/tables` and the leak tests: with nothing
    /// connected each is back to its idle size, whatever came and went (issue 33). Each
    /// worker's tables and the SCTP stack's are read on their own threads: this waits up to
    /// `timeout` seconds for each (a worker that does not answer is reported as
    /// `workers.unanswered`), so it is for tests and the admin API, never a hot path.
    public func tableSizes(timeout: Double = 2) -> [String: Int] {
        var sizes: [String: Int] = [
            "engine.streams": registry.streamCount, "engine.handles": registry.handleCount, "engine.events": outbox.count,
            "engine.originLinks": origin.count, "engine.edgeLinks": edge.count,
            "engine.linkHandles": origin.handleCount + edge.handleCount, "engine.linkResults": edge.answersWaiting,
            "engine.recordings": recordings.count, "engine.precalls": precalls.count,
            "engine.statsBoard": pool.statsBoard.count,
            "engine.dataChannelEvents": routes.queuedEvents,
            "engine.workerEvents": workerEvents.count,
            "engine.recorderEvents": recordings.queuedEvents,
            "recorder.open": recordings.open,
        ]
        for (name, size) in routes.stackTableSizes(timeout: timeout) { sizes[name] = size }
        for (name, size) in pool.tableSizes(timeout: timeout) { sizes[name, default: 0] += size }
        return sizes
    }
}

extension MediaEngine {
    /// Recordings running (or finishing their file), and those that failed since the start:
    /// `/metrics`' `sluice_recordings` and `sluice_recording_failures_total`.
    public var recordingFigures: (running: Int, failed: UInt64) { (recordings.count, recordings.failures) }
}
