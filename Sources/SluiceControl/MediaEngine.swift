import SluiceDataChannel
import SluiceMedia
import SluiceRecord
import SluiceSDP
import SluiceTransport
import SluiceVocabulary
import SluiceWire
import Synchronization

/// The control-plane face of the media side. Called from one control thread (the
/// signaling service thread). Registry decisions (1003, 1004) and SDP negotiation happen
/// here synchronously, so `publish` and `play` return the answer at once; what happens
/// later on the media workers arrives as `MediaEvent`s.
///
/// Event delivery: events are queued and `wakeup` is called; the control thread then calls
/// `drainEvents`. A reply to a request is therefore always sent before the notifications it
/// causes (docs/protocol.md "Order").
public final class MediaEngine: @unchecked Sendable {
    public var wakeup: @Sendable () -> Void = {}
    /// The cluster, for plays of streams published on other nodes; nil on a single node.
    /// Set before the server starts.
    public var remoteStreams: RemoteStreams?

    public let config: MediaEngineConfig
    public let workers: [MediaWorker]
    let workerStreams: [WorkerStreams]
    let negotiator: Negotiation

    // Control-thread state.
    var streams: [String: StreamEntry] = [:]
    var handles: [StreamHandle: HandleEntry] = [:]
    var pending: [MediaEvent] = []

    // Relay links between nodes (MediaEngine+Links.swift). Origin: by link id. Edge: by stream.
    var originLinks: [String: OriginLink] = [:]
    var edgeLinkState: [String: EdgeLink] = [:]
    /// Link handles (either side) to their origin link id or edge stream.
    var linkHandles: [StreamHandle: String] = [:]
    /// Answers to this edge's link requests, from the cluster's threads.
    let linkResults = Mutex<[LinkResult]>([])
    /// The host other nodes reach this one's media at (`cluster.relayAddress`); the first
    /// announced address when nil.
    public var relayHost: String?
    /// When `checkRemoteStreams` last found the registry unreachable.
    var registryLostMicros: UInt64?

    /// The recorder thread (MediaEngine+Recording.swift); nil without `recording`.
    let recorder: Recorder?
    /// Recordings in progress, by their own id (MediaEngine+Recording.swift).
    var recordings: [String: Recording] = [:]
    var nextRecording = 0
    /// Filled by the recorder thread.
    let recorderEvents = Mutex<[RecordingEvent]>([])

    /// Pre-call tests (MediaEngine+Precall.swift): handles bound to no stream.
    var precalls: [StreamHandle: PrecallEntry] = [:]

    /// Filled by the data channel stack's thread (MediaEngine+DataChannels.swift).
    let dataChannelEvents = Mutex<[DataChannelEvent]>([])
    /// This engine's `DataChannelEndpoint.scope`: the stack serves every server in the process.
    let dataChannelScope = MediaEngine.nextDataChannelScope.add(1, ordering: .relaxed).oldValue
    static let nextDataChannelScope = Atomic<Int>(1)

    // Filled by workers from their threads.
    let workerEvents = Mutex<[WorkerEvent]>([])
    let statsBoard = StatsBoard()

    struct StreamEntry {
        var publisher: StreamHandle?
        var publisherTracks: (audio: TrackParameters?, video: TrackParameters?) = (nil, nil)
        var players: [StreamHandle] = []
        var audioMute = MuteState()
        var videoMute = MuteState()
        /// Edge: the codecs of the stream another node publishes, which this node's players
        /// are fed from over a relay link (MediaEngine+Links.swift).
        var remoteCodecs: StreamCodecs?
        /// Edge: the node those codecs came from, so the end of its stream can name the cause.
        var remoteOrigin: String?
        /// Origin: the data channel rules of the publisher's app, when its publish has data
        /// channels: what a relay link's data follows (MediaEngine+LinkData.swift).
        var publisherData: DataChannelPolicy?

        func mute(_ kind: MediaKind) -> MuteState { kind == .audio ? audioMute : videoMute }

        mutating func setMute(_ kind: MediaKind, _ state: MuteState) {
            if kind == .audio { audioMute = state } else { videoMute = state }
        }
    }

    struct HandleEntry {
        var session: SessionID
        var stream: String
        var role: StreamRole
        var wait: Bool
        var worker: Int
        var announcedPublishing = false
        /// A player's last status was PLAYING: a new source (a relay link made again, on an
        /// edge) sends no second one; an UNPUBLISHED (a waiting player's) clears it.
        var announcedPlaying = false
        /// A player's own mute of what it receives.
        var playerMuted: Set<MediaKind> = []
        /// The handle has an endpoint in the SCTP stack, which its end must close. Only such
        /// handles send the stack a close: one for a handle it never saw would wait in its
        /// inbox for good when no data channel ever started the stack's thread.
        var dataChannels = false
    }

    public init(config: MediaEngineConfig) throws {
        self.config = config
        // First: a folder that cannot be written stops the start before any socket is bound.
        recorder = try config.recording.map { try Recorder(settings: $0) }
        let security = try DTLSSecurity.make(srtp: config.srtp)
        negotiator = Negotiation(fingerprint: security.fingerprint)
        var workers: [MediaWorker] = []
        for i in 0..<max(1, config.workers) {
            let port = config.basePort == 0 ? 0 : config.basePort + UInt16(i)
            let address = SocketAddress(host: config.bindAddress.host, port: port) ?? config.bindAddress
            let tcpAddress = config.tcpBasePort.map { base in
                SocketAddress(host: config.bindAddress.host, port: base == 0 ? 0 : base + UInt16(i)) ?? config.bindAddress
            }
            let worker = try MediaWorker(index: i, bindAddress: address, tcpBindAddress: tcpAddress,
                                         tcpOptions: config.tcpOptions)
            worker.log = config.workerLog
            worker.segmentation = config.udpSegmentation
            workers.append(worker)
        }
        self.workers = workers
        workerStreams = workers.map { WorkerStreams(worker: $0, security: security) }
        WorkerStreams.link(workerStreams)
        for media in workerStreams {
            media.report = { [weak self] event in self?.post(event) }
            media.statsBoard = statsBoard
            media.rtpTimeoutMicros = UInt64(max(0, config.rtpTimeoutSeconds)) * 1_000_000
        }
        if let log = config.recorderLog { recorder?.log = log }
        recorder?.events = { [weak self] event in
            self?.recorderEvents.withLock { $0.append(event) }
            self?.wakeup()
        }
        for worker in workers { worker.start() }
        recorder?.run()
    }

    /// The media port of each worker (after binding, so an ephemeral port is known).
    public var ports: [UInt16] { workers.map(\.localAddress.port) }
    /// What each worker's cross-worker fan-out moved (for /metrics; any thread).
    public struct RelayCounters: Sendable {
        public var worker: Int
        public var handed: UInt64
        public var dropped: UInt64
        public var delivered: UInt64
    }
    public var relayCounters: [RelayCounters] {
        workerStreams.enumerated().map { index, streams in
            let counters = streams.relayCounters
            return RelayCounters(worker: index, handed: UInt64(counters.handed), dropped: counters.dropped,
                                 delivered: counters.delivered)
        }
    }
    /// The ICE-TCP port of each worker; empty when TCP is off.
    public var tcpPorts: [UInt16] { workers.compactMap(\.localTCPAddress?.port) }

    // MARK: Requests

    public func publish(_ request: PublishRequest) throws(MediaError) -> MediaAnswer {
        if streams[request.stream]?.publisher != nil { throw .streamNameInUse }
        try checkRecording(request)
        if streams[request.stream] == nil, streams.count >= config.maxStreams {
            throw .limitReached("Too many streams (limits.maxStreams is \(config.maxStreams))")
        }
        let worker = workerIndex(for: request.stream)
        let handle = Self.makeHandle(prefix: "pub")
        let (answer, parameters, dataChannel) = try negotiator.negotiate(
            offer: request.offer, role: .publish, handle: handle, stream: request.stream,
            candidates: candidates(worker: worker), publisherTracks: nil, constraints: request.constraints,
            videoStartBitrateKbps: request.startBitrateKbps, acceptsDataChannel: request.dataChannels != nil,
            consentTimeoutMicros: UInt64(config.iceConsentTimeoutSeconds) * 1_000_000)
        let dataEndpoint = dataChannelEndpoint(dataChannel, policy: request.dataChannels, handle: handle,
                                               session: request.session, stream: request.stream, role: .publish)
        var entry = streams[request.stream] ?? StreamEntry()
        entry.publisher = handle
        entry.publisherTracks = (parameters.audio, parameters.video)
        entry.publisherData = dataEndpoint?.policy
        streams[request.stream] = entry
        handles[handle] = HandleEntry(session: request.session, stream: request.stream, role: .publish,
                                      wait: false, worker: worker, dataChannels: dataEndpoint != nil)
        let media = workerStreams[worker]
        let constraints = request.constraints
        let caps = request.caps
        workers[worker].execute {
            media.addPublisher(parameters, constraints: constraints, caps: caps)
            Self.openDataChannels(dataEndpoint, on: media, handle: handle)
        }
        startRecording(handle, request: request, parameters: parameters, worker: worker)
        emitStatus(handle, .pending, info: nil, ends: false)
        return MediaAnswer(handle: handle, sdp: answer)
    }

    public func play(_ request: PlayRequest) throws(MediaError) -> MediaAnswer {
        let entry = streams[request.stream]
        let remote = entry?.publisher == nil ? try remoteCodecs(of: request.stream) : nil
        if entry?.publisher == nil && remote == nil && !request.wait { throw .streamNotFound }
        if let entry, entry.players.count >= config.maxPlayersPerStream {
            throw .limitReached("Too many players (limits.maxPlayersPerStream is \(config.maxPlayersPerStream))")
        }
        if entry == nil, streams.count >= config.maxStreams {
            throw .limitReached("Too many streams (limits.maxStreams is \(config.maxStreams))")
        }
        let home = workerIndex(for: request.stream)
        let worker = leastLoadedWorker()
        let handle = Self.makeHandle(prefix: "play")
        let (answer, parameters, dataChannel) = try negotiator.negotiate(
            offer: request.offer, role: .play, handle: handle, stream: request.stream,
            // Without a publisher (players waiting already, or it left) the entry's tracks are
            // empty: answer from the offer, as for the first waiting player, not "no codecs".
            candidates: candidates(worker: worker),
            publisherTracks: remote.map(Self.tracks) ?? (entry?.publisher != nil ? entry?.publisherTracks : nil),
            constraints: request.constraints, acceptsDataChannel: request.dataChannels != nil,
            consentTimeoutMicros: UInt64(config.iceConsentTimeoutSeconds) * 1_000_000)
        var updated = entry ?? StreamEntry()
        updated.players.append(handle)
        if let remote {
            updated.remoteCodecs = remote
            if updated.remoteOrigin == nil { updated.remoteOrigin = remoteStreams?.originNode(of: request.stream) }
        }
        streams[request.stream] = updated
        let dataEndpoint = dataChannelEndpoint(dataChannel, policy: request.dataChannels, handle: handle,
                                               session: request.session, stream: request.stream, role: .play)
        handles[handle] = HandleEntry(session: request.session, stream: request.stream, role: .play,
                                      wait: request.wait, worker: worker, dataChannels: dataEndpoint != nil)
        let media = workerStreams[worker]
        let constraints = request.constraints
        let instantJoin = request.instantJoin
        workers[worker].execute {
            media.addPlayer(parameters, constraints: constraints, home: home, instantJoin: instantJoin)
            Self.openDataChannels(dataEndpoint, on: media, handle: handle)
        }
        emitStatus(handle, .pending, info: nil, ends: false)
        if remote != nil { ensureLink(request.stream) }
        if dataEndpoint != nil { updateEdgeData(request.stream) }
        return MediaAnswer(handle: handle, sdp: answer)
    }

    public func stop(handle: StreamHandle) throws(MediaError) {
        if precalls[handle] != nil {
            endPrecall(handle)
            return
        }
        guard handles[handle] != nil else { throw .unknownHandle }
        end(handle, info: StatusInfo.user)
    }

    public func stats(handle: StreamHandle) throws(MediaError) -> HandleStats {
        if precalls[handle] != nil { throw .wrongRole }
        guard let entry = handles[handle] else { throw .unknownHandle }
        return statsBoard.snapshot(handle) ?? HandleStats(handle: handle, stream: entry.stream, role: entry.role,
                                                          audio: nil, video: nil)
    }

    public func requestKeyFrame(handle: StreamHandle) throws(MediaError) {
        if precalls[handle] != nil { throw .wrongRole }
        guard let entry = handles[handle] else { throw .unknownHandle }
        let media = workerStreams[entry.worker]
        workers[entry.worker].execute { media.requestKeyFrame(for: handle) }
    }

    public func update(handle: StreamHandle, constraints: StreamConstraints) throws(MediaError) {
        if precalls[handle] != nil { throw .wrongRole }
        guard let entry = handles[handle] else { throw .unknownHandle }
        let media = workerStreams[entry.worker]
        workers[entry.worker].execute { media.update(handle, constraints: constraints) }
    }

    public func setMuted(handle: StreamHandle, kind: MediaKind, muted: Bool) throws(MediaError) {
        if precalls[handle] != nil { throw .wrongRole }
        guard var entry = handles[handle], var stream = streams[entry.stream] else { throw .unknownHandle }
        if entry.role == .play {
            if muted { entry.playerMuted.insert(kind) } else { entry.playerMuted.remove(kind) }
            handles[handle] = entry
            let media = workerStreams[entry.worker]
            workers[entry.worker].execute { media.setPlayerMuted(handle, kind: kind, muted: muted) }
            emitEvent(handle, EventWords.mute(kind, muted: muted, by: .player))
            return
        }
        var state = stream.mute(kind)
        if !muted && state.byServer { throw .restrictedAccess }
        let before = state.muted
        state.byPublisher = muted
        stream.setMute(kind, state)
        streams[entry.stream] = stream
        if state.muted != before { applyMute(stream: entry.stream, kind: kind, by: .publisher, muted: muted) }
    }

    /// Server-side (moderator) mute from the admin API. It outranks the publisher's own.
    public func setServerMuted(stream name: String, kind: MediaKind, muted: Bool) throws(MediaError) {
        guard var stream = streams[name], stream.publisher != nil else { throw .streamNotFound }
        var state = stream.mute(kind)
        let before = state.muted
        state.byServer = muted
        stream.setMute(kind, state)
        streams[name] = stream
        // Events tell what players get: a server unmute under a publisher's own mute changes nothing.
        if state.muted != before { applyMute(stream: name, kind: kind, by: .server, muted: muted) }
    }

    /// Tells the worker the stream-wide mute of `kind`, and the publisher and every player why.
    func applyMute(stream name: String, kind: MediaKind, by: EventWords.MuteSource, muted: Bool) {
        guard let stream = streams[name] else { return }
        let effective = stream.mute(kind).muted
        let worker = workerIndex(for: name)
        let media = workerStreams[worker]
        workers[worker].execute { media.setStreamMuted(name, kind: kind, muted: effective) }
        if stream.publisher != nil { muteChangedForLinks(name) }
        let words = EventWords.mute(kind, muted: muted, by: by)
        if let publisher = stream.publisher { emitEvent(publisher, words) }
        for player in stream.players { emitEvent(player, words) }
    }

    /// Every stream with its publisher, players and mute state, for the admin API.
    public func streamViews() -> [StreamView] {
        streams.keys.sorted().compactMap { name in streamView(name) }
    }

    public func streamView(_ name: String) -> StreamView? {
        guard let stream = streams[name] else { return nil }
        func stats(_ handle: StreamHandle, _ role: StreamRole) -> HandleStats {
            var stats = statsBoard.snapshot(handle) ?? HandleStats(handle: handle, stream: name, role: role, audio: nil, video: nil)
            stats.worker = handles[handle]?.worker
            return stats
        }
        let publisher = stream.publisher.map { stats($0, .publish) }
        let players = stream.players.map { stats($0, .play) }
        return StreamView(name: name, publisher: publisher,
                          publisherSession: stream.publisher.flatMap { handles[$0]?.session },
                          players: players, audioMuted: stream.audioMute, videoMuted: stream.videoMute)
    }

    /// Ends a stream's publisher from the admin API ("Stopped by rest /terminate").
    public func terminate(stream: String) throws(MediaError) {
        guard let publisher = streams[stream]?.publisher else { throw .streamNotFound }
        end(publisher, info: StatusInfo.restTerminate)
    }

    public func endSession(_ session: SessionID) {
        for (handle, entry) in precalls where entry.session == session { endPrecall(handle) }
        let owned = handles.filter { $0.value.session == session }
        // Publishers first, so the session's own players are not told twice.
        for (handle, entry) in owned where entry.role == .publish {
            end(handle, info: StatusInfo.sessionDisconnect)
        }
        for (handle, entry) in owned where entry.role == .play && handles[handle] != nil {
            end(handle, info: StatusInfo.sessionDisconnect)
        }
    }

    public func drainEvents(_ body: (MediaEvent) -> Void) {
        let raw = workerEvents.withLock { queue -> [WorkerEvent] in
            let taken = queue
            queue.removeAll()
            return taken
        }
        for event in raw { apply(event) }
        for result in linkResults.withLock({ queue -> [LinkResult] in
            let taken = queue
            queue.removeAll()
            return taken
        }) { linkAnswered(result) }
        for event in recorderEvents.withLock({ queue -> [RecordingEvent] in
            let taken = queue
            queue.removeAll()
            return taken
        }) { recordingEvent(event) }
        for event in dataChannelEvents.withLock({ queue -> [DataChannelEvent] in
            let taken = queue
            queue.removeAll()
            return taken
        }) { dataChannelEvent(event) }
        let out = pending
        pending.removeAll()
        for event in out { body(event) }
    }

    public func shutdown() {
        for (session) in Set(handles.values.map(\.session)) { endSession(session) }
        for worker in workers { worker.stop() }
        // A worker stopped before another may miss that one's last commands to it (a
        // relaying worker telling the home it stopped relaying): drop what is left now that no
        // worker thread runs.
        for media in workerStreams { media.teardown() }
        // After the workers: every ring is closed, so each file gets what was handed over.
        recorder?.shutdown()
    }

    public var sessionCount: Int { Set(handles.values.map(\.session)).count }
    public var streamNames: [String] { streams.compactMap { $0.value.publisher == nil ? nil : $0.key }.sorted() }

    // MARK: Internals

    /// Ends a handle with its own status; a publisher's players learn that it went away.
    func end(_ handle: StreamHandle, info: String) {
        guard let entry = handles.removeValue(forKey: handle) else { return }
        let media = workerStreams[entry.worker]
        // The data channels close from the worker too, after the open it sent when it made the
        // transport (which may still be in its inbox).
        let dataChannels = entry.dataChannels
        workers[entry.worker].execute {
            media.remove(handle)
            if dataChannels { SCTPStack.shared.close(handle) }
        }
        statsBoard.remove(handle)
        let status: StreamStatus = info.hasPrefix("Failed") ? .failed
            : (entry.role == .publish ? .unpublished : .stopped)
        emitStatus(handle, status, info: info, ends: true, entry: entry)
        guard var stream = streams[entry.stream] else { return }
        if entry.role == .publish, stream.publisher == handle {
            stream.publisher = nil
            stream.publisherTracks = (nil, nil)
            stream.publisherData = nil
            stream.audioMute.byPublisher = false
            stream.videoMute.byPublisher = false
            publisherGone(&stream, info: StatusInfo.publisherStop)
        } else {
            stream.players.removeAll { $0 == handle }
        }
        if stream.publisher == nil && stream.players.isEmpty {
            streams[entry.stream] = nil
            closeEdgeLink(entry.stream)
        } else {
            streams[entry.stream] = stream
            if entry.dataChannels { updateEdgeData(entry.stream) }
        }
    }

    /// The stream's publisher went (here, or on its origin node): waiting players are told
    /// and stay; the others end.
    func publisherGone(_ stream: inout StreamEntry, info: String) {
        for player in stream.players {
            guard var playerEntry = handles[player] else { continue }
            if playerEntry.wait {
                playerEntry.announcedPlaying = false
                handles[player] = playerEntry
                emitStatus(player, .unpublished, info: info, ends: false)
            } else {
                handles[player] = nil
                statsBoard.remove(player)
                let media = workerStreams[playerEntry.worker]
                let dataChannels = playerEntry.dataChannels
                workers[playerEntry.worker].execute {
                    media.remove(player)
                    if dataChannels { SCTPStack.shared.close(player) }
                }
                emitStatus(player, .unpublished, info: info, ends: true, entry: playerEntry)
            }
        }
        stream.players.removeAll { handles[$0] == nil }
    }

    private func apply(_ event: WorkerEvent) {
        switch event {
        case .publishing(let handle):
            guard var entry = handles[handle], entry.role == .publish, !entry.announcedPublishing else { return }
            entry.announcedPublishing = true
            handles[handle] = entry
            emitStatus(handle, .publishing, info: nil, ends: false)
        case .playing(let handle):
            guard var entry = handles[handle], entry.role == .play, !entry.announcedPlaying else { return }
            entry.announcedPlaying = true
            handles[handle] = entry
            emitStatus(handle, .playing, info: nil, ends: false)
        case .precallProgress, .precallDone:
            precallEvent(event)
        case .failed(let handle, let reason) where precalls[handle] != nil:
            precallFailed(handle, info: StatusInfo.failure(reason))
        case .failed(let handle, let reason):
            guard handles[handle] != nil else {
                linkFailed(handle, reason: reason)
                return
            }
            end(handle, info: StatusInfo.failure(reason))
        case .layerChanged(let handle, _, _, _, _), .notEnoughBandwidth(let handle, _),
             .connectionQuality(let handle, _, _), .limitExceeded(let handle, _, _, _):
            guard let words = EventWords.words(event) else { return }
            emitEvent(handle, words)
        case .linkMuted(let handle, let flags):
            linkMuted(handle, flags: flags)
        case .resize(let name, _, _):
            guard let stream = streams[name], let words = EventWords.words(event) else { return }
            for handle in [stream.publisher].compactMap({ $0 }) + stream.players {
                emitEvent(handle, words)
            }
        }
    }

    func emitEvent(_ handle: StreamHandle, _ words: EventWords.Words) {
        guard let entry = handles[handle] else { return }
        pending.append(.streamEvent(session: entry.session, handle: handle, stream: entry.stream,
                                    type: words.type, by: words.by, data: words.data))
        wakeup()
    }

    func emitStatus(_ handle: StreamHandle, _ status: StreamStatus, info: String?, ends: Bool,
                            entry: HandleEntry? = nil) {
        guard let entry = entry ?? handles[handle] else { return }
        pending.append(.streamStatus(session: entry.session, handle: handle, stream: entry.stream,
                                     role: entry.role, status: status, info: info, ends: ends))
        wakeup()
    }

    /// Called from worker threads (and by the control-plane tests, to feed typed events).
    package func post(_ event: WorkerEvent) {
        workerEvents.withLock { $0.append(event) }
        wakeup()
    }

    /// A stream's home: the worker its publisher is on, chosen from its name, so that the
    /// workers of players waiting for a name know where the publisher who comes later will be.
    func workerIndex(for stream: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in stream.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % UInt64(workers.count))
    }

    /// Where a new player goes: the worker with the fewest publishers and players (the first
    /// of those tied). Its worker relays the stream from the home when they differ
    /// (docs/design.md "One stream on every worker").
    func leastLoadedWorker() -> Int {
        guard workers.count > 1 else { return 0 }
        var load = [Int](repeating: 0, count: workers.count)
        for entry in handles.values { load[entry.worker] += 1 }
        for entry in precalls.values { load[entry.worker] += 1 }
        return load.indices.min { load[$0] < load[$1] } ?? 0
    }

    /// Every announced address as a UDP host candidate, then (ICE-TCP on) as a passive TCP one.
    func candidates(worker: Int) -> [ServerCandidate] {
        let port = Int(workers[worker].localAddress.port)
        var result = config.announcedAddresses.map { ServerCandidate(ip: $0, port: port) }
        if let tcpPort = workers[worker].localTCPAddress?.port {
            result += config.announcedAddresses.map { ServerCandidate(ip: $0, port: Int(tcpPort), transport: "tcp") }
        }
        return result
    }

    static func makeHandle(prefix: String) -> StreamHandle {
        prefix + "-" + RandomToken.make(length: 16)
    }
}
