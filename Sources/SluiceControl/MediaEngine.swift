import SluiceMedia
import SluiceRecord
import SluiceTransport
import SluiceVocabulary

/// The control-plane face of the media side. Called from one control thread (the
/// signaling service thread). Registry decisions (1003, 1004) and SDP negotiation happen
/// here synchronously, so `publish` and `play` return the answer at once; what happens
/// later on the media workers arrives as `MediaEvent`s.
///
/// Event delivery: events are queued and `wakeup` is called; the control thread then calls
/// `drainEvents`. A reply to a request is therefore always sent before the notifications it
/// causes (docs/protocol.md "Order").
///
/// The engine composes parts that each own their state: the `StreamRegistry` (streams,
/// handles, their statuses), `OriginLinks` and `EdgeLinks` (relay links between nodes),
/// `Recordings`, `Precalls` and `DataChannelRoutes`, over the `WorkerPool`. It routes each
/// request and each event to its part, and what one part's change means to another (an edge's
/// link follows its stream's end).
// @unchecked Sendable: confined to the control thread; other threads reach it only through Mutex-guarded inboxes.
public final class MediaEngine: MediaControl, @unchecked Sendable {
    public let config: MediaEngineConfig
    let negotiator: Negotiation
    let outbox: Outbox
    let pool: WorkerPool
    let registry: StreamRegistry
    let routes: DataChannelRoutes
    let origin: OriginLinks
    let edge: EdgeLinks
    let recordings: Recordings
    let precalls: Precalls
    /// Filled by workers from their threads.
    let workerEvents: Inbox<WorkerEvent>

    public init(config: MediaEngineConfig) throws {
        self.config = config
        // First: a folder that cannot be written stops the start before any socket is bound.
        let recorder = try config.recording.map { try Recorder(settings: $0) }
        if let log = config.recorderLog { recorder?.log = log }
        let security = try DTLSSecurity.make(srtp: config.srtp)
        negotiator = Negotiation(fingerprint: security.fingerprint)
        let outbox = Outbox()
        self.outbox = outbox
        pool = try WorkerPool(config: config, security: security)
        registry = StreamRegistry(pool: pool, outbox: outbox, maxStreams: config.maxStreams,
                                  maxPlayersPerStream: config.maxPlayersPerStream)
        routes = DataChannelRoutes(registry: registry, outbox: outbox)
        origin = OriginLinks(registry: registry, routes: routes, pool: pool, config: config,
                             fingerprint: security.fingerprint)
        edge = EdgeLinks(registry: registry, routes: routes, pool: pool, outbox: outbox, config: config,
                         fingerprint: security.fingerprint)
        recordings = Recordings(recorder: recorder, registry: registry, pool: pool, outbox: outbox)
        precalls = Precalls(pool: pool, negotiator: negotiator, outbox: outbox,
                            consentTimeoutMicros: config.consentTimeoutMicros)
        workerEvents = Inbox(wake: { [weak outbox] in outbox?.wake() })
        registry.publisherMuteChanged = { [unowned origin, unowned registry, unowned outbox] stream in
            origin.muteChanged(stream)
            outbox.post(.audioLevel(stream: stream, level: nil, muted: registry.audioMuted(stream)))
        }
        pool.start(report: { [weak self] event in self?.post(event) })
        recordings.run()
    }

    /// Called from any thread when events are waiting; set by the control plane.
    public var wakeup: @Sendable () -> Void {
        get { outbox.wakeup }
        set { outbox.wakeup = newValue }
    }

    /// The cluster, for plays of streams published on other nodes; nil on a single node.
    /// Set before the server starts.
    public var remoteStreams: RemoteStreams? {
        get { edge.remoteStreams }
        set { edge.remoteStreams = newValue }
    }

    /// The host other nodes reach this one's media at (`cluster.relayAddress`); the first
    /// announced address when nil.
    public var relayHost: String? {
        get { origin.relayHost }
        set { origin.relayHost = newValue }
    }

    public var workers: [MediaWorker] { pool.workers }
    /// The media port of each worker (after binding, so an ephemeral port is known).
    public var ports: [UInt16] { pool.workers.map(\.localAddress.port) }
    /// The ICE-TCP port of each worker; empty when TCP is off.
    public var tcpPorts: [UInt16] { pool.workers.compactMap(\.localTCPAddress?.port) }

    /// What each worker's cross-worker fan-out moved (for /metrics; any thread).
    public struct RelayCounters: Sendable {
        public var worker: Int
        public var handed: UInt64
        public var dropped: UInt64
        public var delivered: UInt64
    }

    public var relayCounters: [RelayCounters] {
        pool.media.enumerated().map { index, streams in
            let counters = streams.relayCounters
            return RelayCounters(worker: index, handed: UInt64(counters.handed), dropped: counters.dropped,
                                 delivered: counters.delivered)
        }
    }

    public var sessionCount: Int { registry.sessions.count }
    public var streamNames: [String] { registry.publishedNames }

    // MARK: Events

    public func drainEvents(_ body: (MediaEvent) -> Void) {
        for event in workerEvents.takeAll() { apply(event) }
        edge.drainAnswers()
        recordings.drainEvents()
        routes.drainEvents()
        for event in outbox.takeAll() { body(event) }
    }

    /// Called from worker threads (and by the control-plane tests, to feed typed events).
    package func post(_ event: WorkerEvent) {
        workerEvents.push(event)
    }

    private func apply(_ event: WorkerEvent) {
        switch event {
        case .publishing(let handle):
            registry.publishing(handle)
        case .playing(let handle):
            registry.playing(handle)
        case .precallProgress, .precallDone:
            precalls.workerEvent(event)
        case .failed(let handle, let reason) where precalls.owns(handle):
            precalls.failed(handle, info: StatusInfo.failure(reason))
        case .failed(let handle, let reason):
            guard registry.contains(handle) else {
                // A relay link's, on either side.
                if !origin.failed(handle) { edge.failed(handle) }
                return
            }
            end(handle, info: StatusInfo.failure(reason))
        case .layerChanged(let handle, _, _, _, _), .notEnoughBandwidth(let handle, _),
             .connectionQuality(let handle, _, _), .limitExceeded(let handle, _, _, _), .layersWanted(let handle, _, _):
            guard let words = EventWords.words(event) else { return }
            registry.emitEvent(handle, words)
        case .audioLevel(let handle, let stream, let level, let voice):
            // A level from a publisher already gone (the event was queued) is dropped.
            guard registry.contains(handle) else { return }
            outbox.post(.audioLevel(stream: stream, level: (level, voice), muted: registry.audioMuted(stream)))
        case .linkMuted(let handle, let flags):
            edge.muted(handle, flags: flags)
        case .resize(let name, _, _):
            guard let words = EventWords.words(event) else { return }
            registry.emitToStream(name, words)
        }
    }

    /// Ends a handle with its own status; a publisher's players learn that it went away. An
    /// edge's link goes with the last of its stream, and carries data only while a player here
    /// has data channels.
    func end(_ handle: StreamHandle, info: String) {
        guard let ended = registry.end(handle, info: info) else { return }
        if ended.streamGone {
            edge.streamGone(ended.stream)
        } else if ended.dataChannels {
            edge.updateData(ended.stream)
        }
    }

    public func shutdown() {
        for session in registry.sessions { endSession(session) }
        pool.stop()
        // After the workers: every ring is closed, so each file gets what was handed over.
        recordings.shutdown()
    }
}
