import SluiceDataChannel
import SluiceMedia
import SluiceVocabulary

/// The stream registry: every stream by name with its publisher, players and mute state, and
/// every publish and play handle with its session and worker. It makes the registry's decisions
/// synchronously (1003, 1004, the limits), so `publish` and `play` answer at once; it decides
/// what a handle's end does to its stream (a publisher's waiting players stay, the others end)
/// and the mute policy; and it tells each handle's session what happened to it. Control thread.
final class StreamRegistry {
    private var streams: [String: StreamEntry] = [:]
    private var handles: [StreamHandle: HandleEntry] = [:]
    private let pool: WorkerPool
    private let outbox: Outbox
    private let maxStreams: Int
    private let maxPlayersPerStream: Int
    /// A published stream's mute for every player changed: set by the engine, so the stream's
    /// relay links tell their edges (`OriginLinks.muteChanged`).
    var publisherMuteChanged: (String) -> Void = { _ in }

    /// The stream's audio is muted for every player (by its publisher or the server).
    func audioMuted(_ stream: String) -> Bool { streams[stream]?.audioMute.muted ?? false }

    init(pool: WorkerPool, outbox: Outbox, maxStreams: Int, maxPlayersPerStream: Int) {
        self.pool = pool
        self.outbox = outbox
        self.maxStreams = maxStreams
        self.maxPlayersPerStream = maxPlayersPerStream
    }

    // MARK: Admission

    /// 1003: a name has one publisher at a time.
    func checkNameFree(_ stream: String) throws(MediaError) {
        if streams[stream]?.publisher != nil { throw .streamNameInUse }
    }

    /// A publisher of a name nobody waits for opens a stream entry: `limits.maxStreams`.
    func checkRoomForPublisher(of stream: String) throws(MediaError) {
        if streams[stream] == nil, streams.count >= maxStreams { throw tooManyStreams }
    }

    /// 1004 for a name nobody publishes, here or on another node (`relayed`), unless the player
    /// waits; then the limits (a waiting player opens a stream entry too).
    func checkPlayer(of stream: String, wait: Bool, relayed: Bool) throws(MediaError) {
        let entry = streams[stream]
        if entry?.publisher == nil && !relayed && !wait { throw .streamNotFound }
        if let entry, entry.players.count >= maxPlayersPerStream {
            throw .limitReached("Too many players (limits.maxPlayersPerStream is \(maxPlayersPerStream))")
        }
        if entry == nil, streams.count >= maxStreams { throw tooManyStreams }
    }

    private var tooManyStreams: MediaError { .limitReached("Too many streams (limits.maxStreams is \(maxStreams))") }

    // MARK: Handles

    func addPublisher(_ handle: StreamHandle, session: SessionID, stream: String, worker: Int,
                      tracks: (audio: TrackParameters?, video: TrackParameters?), data: DataChannelPolicy?) {
        var entry = streams[stream] ?? StreamEntry()
        entry.publisher = handle
        entry.publisherTracks = tracks
        entry.publisherData = data
        streams[stream] = entry
        handles[handle] = HandleEntry(session: session, stream: stream, role: .publish, wait: false, worker: worker,
                                      dataChannels: data != nil)
    }

    func addPlayer(_ handle: StreamHandle, session: SessionID, stream: String, wait: Bool, worker: Int,
                   dataChannels: Bool) {
        var entry = streams[stream] ?? StreamEntry()
        entry.players.append(handle)
        streams[stream] = entry
        handles[handle] = HandleEntry(session: session, stream: stream, role: .play, wait: wait, worker: worker,
                                      dataChannels: dataChannels)
    }

    func contains(_ handle: StreamHandle) -> Bool { handles[handle] != nil }

    func worker(of handle: StreamHandle) -> Int? { handles[handle]?.worker }

    /// What the publisher of `stream` brings, for a relay link or a recording of it; nil
    /// without one.
    func publisher(of stream: String) -> Publisher? {
        guard let entry = streams[stream], let handle = entry.publisher, let owner = handles[handle] else { return nil }
        return Publisher(handle: handle, session: owner.session, worker: owner.worker, tracks: entry.publisherTracks,
                         data: entry.publisherData)
    }

    /// A publish's tracks, which a player's answer follows; nil without a publisher (players
    /// waiting already, or it left): the entry's tracks are empty then, and the player's answer
    /// is made from its offer, as for the first waiting player, not "no codecs".
    func publisherTracks(of stream: String) -> (audio: TrackParameters?, video: TrackParameters?)? {
        guard let entry = streams[stream], entry.publisher != nil else { return nil }
        return entry.publisherTracks
    }

    /// The session's handles, for its end.
    func handles(ownedBy session: SessionID) -> [(handle: StreamHandle, role: StreamRole)] {
        handles.filter { $0.value.session == session }.map { ($0.key, $0.value.role) }
    }

    /// Every handle with its stream and role, in handle order.
    func handleRoles() -> [(handle: StreamHandle, stream: String, role: StreamRole)] {
        handles.sorted { $0.key < $1.key }.map { ($0.key, $0.value.stream, $0.value.role) }
    }

    /// The worker of every handle: their load.
    var handleWorkers: [Int] { handles.values.map(\.worker) }
    var sessions: Set<SessionID> { Set(handles.values.map(\.session)) }
    /// The names with a publisher here, sorted.
    var publishedNames: [String] { streams.compactMap { $0.value.publisher == nil ? nil : $0.key }.sorted() }
    var streamCount: Int { streams.count }
    var handleCount: Int { handles.count }

    // MARK: Ends

    /// Ends a handle with its own status; a publisher's players learn that it went away. nil
    /// for a handle (or a stream) the registry does not hold.
    func end(_ handle: StreamHandle, info: String) -> Ended? {
        guard let entry = handles.removeValue(forKey: handle) else { return nil }
        removeFromWorker(handle, entry)
        pool.statsBoard.remove(handle)
        let status: StreamStatus = info.hasPrefix("Failed") ? .failed
            : (entry.role == .publish ? .unpublished : .stopped)
        emitStatus(handle, status, info: info, ends: true, entry: entry)
        guard var stream = streams[entry.stream] else { return nil }
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
        let gone = stream.publisher == nil && stream.players.isEmpty
        streams[entry.stream] = gone ? nil : stream
        return Ended(stream: entry.stream, streamGone: gone, dataChannels: entry.dataChannels)
    }

    /// Edge: the stream another node published ended there. Its players here are told as for a
    /// local publisher; the entry stays while waiting players are left.
    func relayEnded(_ name: String, info: String) {
        guard var entry = streams[name] else { return }
        publisherGone(&entry, info: info)
        streams[name] = entry.players.isEmpty ? nil : entry
    }

    /// The stream's publisher went (here, or on its origin node): waiting players are told
    /// and stay; the others end.
    private func publisherGone(_ stream: inout StreamEntry, info: String) {
        for player in stream.players {
            guard var playerEntry = handles[player] else { continue }
            if playerEntry.wait {
                playerEntry.announcedPlaying = false
                handles[player] = playerEntry
                emitStatus(player, .unpublished, info: info, ends: false)
            } else {
                handles[player] = nil
                pool.statsBoard.remove(player)
                removeFromWorker(player, playerEntry)
                emitStatus(player, .unpublished, info: info, ends: true, entry: playerEntry)
            }
        }
        stream.players.removeAll { handles[$0] == nil }
    }

    private func removeFromWorker(_ handle: StreamHandle, _ entry: HandleEntry) {
        // The data channels close from the worker too, after the open it sent when it made the
        // transport (which may still be in its inbox).
        let dataChannels = entry.dataChannels
        pool.run(on: entry.worker) { media in
            media.remove(handle)
            if dataChannels { SCTPStack.shared.close(handle) }
        }
    }

    // MARK: What the workers saw

    /// The publisher's media arrived: PUBLISHING, once.
    func publishing(_ handle: StreamHandle) {
        guard var entry = handles[handle], entry.role == .publish, !entry.announcedPublishing else { return }
        entry.announcedPublishing = true
        handles[handle] = entry
        emitStatus(handle, .publishing, info: nil, ends: false)
    }

    /// The player gets media: PLAYING, once per source (see `HandleEntry.announcedPlaying`).
    func playing(_ handle: StreamHandle) {
        guard var entry = handles[handle], entry.role == .play, !entry.announcedPlaying else { return }
        entry.announcedPlaying = true
        handles[handle] = entry
        emitStatus(handle, .playing, info: nil, ends: false)
    }

    // MARK: Mute

    /// `mute`/`unmute`. On a play handle, that player's own mute of what it receives; on a
    /// publish handle, the stream's for every player, which a moderator's mute outranks (the
    /// publisher cannot lift it: restricted access).
    func setMuted(handle: StreamHandle, kind: MediaKind, muted: Bool) throws(MediaError) {
        guard var entry = handles[handle], var stream = streams[entry.stream] else { throw .unknownHandle }
        if entry.role == .play {
            if muted { entry.playerMuted.insert(kind) } else { entry.playerMuted.remove(kind) }
            handles[handle] = entry
            pool.run(on: entry.worker) { $0.setPlayerMuted(handle, kind: kind, muted: muted) }
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

    /// Server-side (moderator) mute. It outranks the publisher's own.
    func setServerMuted(stream name: String, kind: MediaKind, muted: Bool) throws(MediaError) {
        guard var stream = streams[name], stream.publisher != nil else { throw .streamNotFound }
        var state = stream.mute(kind)
        let before = state.muted
        state.byServer = muted
        stream.setMute(kind, state)
        streams[name] = stream
        // Events tell what players get: a server unmute under a publisher's own mute changes nothing.
        if state.muted != before { applyMute(stream: name, kind: kind, by: .server, muted: muted) }
    }

    /// The stream's mute state as a relay link tells it to its edges; nil without the stream.
    func linkMute(of name: String) -> LinkMuteState? {
        guard let entry = streams[name] else { return nil }
        return LinkMuteState(audioByPublisher: entry.audioMute.byPublisher, audioByServer: entry.audioMute.byServer,
                             videoByPublisher: entry.videoMute.byPublisher, videoByServer: entry.videoMute.byServer)
    }

    /// Edge: the origin's mute state of a stream this node relays. Its players here get the
    /// same events (with the same `by`) as the origin's own players.
    func applyLinkMute(_ name: String, _ mute: LinkMuteState) {
        guard var entry = streams[name] else { return }
        let states: [(MediaKind, MuteState)] = [
            (.audio, MuteState(byPublisher: mute.audioByPublisher, byServer: mute.audioByServer)),
            (.video, MuteState(byPublisher: mute.videoByPublisher, byServer: mute.videoByServer)),
        ]
        for (kind, state) in states {
            let before = entry.mute(kind)
            guard state != before else { continue }
            entry.setMute(kind, state)
            streams[name] = entry
            guard state.muted != before.muted else { continue }
            let by: EventWords.MuteSource = state.byServer != before.byServer ? .server : .publisher
            applyMute(stream: name, kind: kind, by: by, muted: state.muted)
        }
    }

    /// Tells the worker the stream-wide mute of `kind`, and the publisher and every player why.
    private func applyMute(stream name: String, kind: MediaKind, by: EventWords.MuteSource, muted: Bool) {
        guard let stream = streams[name] else { return }
        let effective = stream.mute(kind).muted
        pool.run(on: pool.home(of: name)) { $0.setStreamMuted(name, kind: kind, muted: effective) }
        if stream.publisher != nil { publisherMuteChanged(name) }
        let words = EventWords.mute(kind, muted: muted, by: by)
        if let publisher = stream.publisher { emitEvent(publisher, words) }
        for player in stream.players { emitEvent(player, words) }
    }

    // MARK: Views

    /// The handle's stats so far (empty until its worker published some).
    func stats(_ handle: StreamHandle) throws(MediaError) -> HandleStats {
        guard let entry = handles[handle] else { throw .unknownHandle }
        return pool.statsBoard.snapshot(handle) ?? HandleStats(handle: handle, stream: entry.stream, role: entry.role,
                                                               audio: nil, video: nil)
    }

    func streamView(_ name: String) -> StreamView? {
        guard let stream = streams[name] else { return nil }
        func stats(_ handle: StreamHandle, _ role: StreamRole) -> HandleStats {
            var stats = pool.statsBoard.snapshot(handle)
                ?? HandleStats(handle: handle, stream: name, role: role, audio: nil, video: nil)
            stats.worker = handles[handle]?.worker
            return stats
        }
        let publisher = stream.publisher.map { stats($0, .publish) }
        let players = stream.players.map { stats($0, .play) }
        return StreamView(name: name, publisher: publisher,
                          publisherSession: stream.publisher.flatMap { handles[$0]?.session },
                          players: players, audioMuted: stream.audioMute, videoMuted: stream.videoMute)
    }

    var streamNames: [String] { streams.keys.sorted() }

    // MARK: Edge

    /// Streams with players and no publisher here, sorted: those another node may publish.
    var unpublishedStreams: [String] {
        streams.filter { $0.value.publisher == nil && !$0.value.players.isEmpty }.keys.sorted()
    }

    func hasPlayers(_ stream: String) -> Bool { streams[stream]?.players.isEmpty == false }

    /// A player of `stream` has data channels (what an edge's link carries data for).
    func hasDataChannelPlayers(_ stream: String) -> Bool {
        streams[stream]?.players.contains { handles[$0]?.dataChannels == true } ?? false
    }

    // MARK: Notifications

    func emitEvent(_ handle: StreamHandle, _ words: EventWords.Words) {
        guard let entry = handles[handle] else { return }
        outbox.post(.streamEvent(session: entry.session, handle: handle, stream: entry.stream,
                                 type: words.type, by: words.by, data: words.data))
    }

    /// The same event to the stream's publisher and every player.
    func emitToStream(_ name: String, _ words: EventWords.Words) {
        guard let stream = streams[name] else { return }
        for handle in [stream.publisher].compactMap({ $0 }) + stream.players {
            emitEvent(handle, words)
        }
    }

    /// `entry`: a handle already dropped from the registry (its last status).
    func emitStatus(_ handle: StreamHandle, _ status: StreamStatus, info: String?, ends: Bool,
                    entry: HandleEntry? = nil) {
        guard let entry = entry ?? handles[handle] else { return }
        outbox.post(.streamStatus(session: entry.session, handle: handle, stream: entry.stream,
                                  role: entry.role, status: status, info: info, ends: ends))
    }
}
