import SluiceDataChannel
import SluiceMedia
import SluiceVocabulary

/// The signaling layer's requests (`MediaControl`): each is checked and answered here, on the
/// control thread, by the parts that own what it touches.
extension MediaEngine {
    public func publish(_ request: PublishRequest) throws(MediaError) -> MediaAnswer {
        try registry.checkNameFree(request.stream)
        try recordings.check(request)
        try registry.checkRoomForPublisher(of: request.stream)
        let worker = pool.home(of: request.stream)
        let handle = RandomToken.handle(prefix: "pub")
        var (answer, parameters, dataChannel) = try negotiator.negotiate(
            offer: request.offer, role: .publish, handle: handle, stream: request.stream,
            candidates: pool.candidates(worker: worker), publisherTracks: nil, constraints: request.constraints,
            videoStartBitrateKbps: request.startBitrateKbps, acceptsDataChannel: request.dataChannels != nil,
            red: request.red, consentTimeoutMicros: config.consentTimeoutMicros)
        parameters.video?.encrypted = request.e2ee
        let dataEndpoint = routes.endpoint(dataChannel, policy: request.dataChannels, handle: handle,
                                           session: request.session, stream: request.stream, role: .publish)
        registry.addPublisher(handle, session: request.session, stream: request.stream, worker: worker,
                              tracks: (parameters.audio, parameters.video), data: dataEndpoint?.policy)
        let constraints = request.constraints
        let caps = request.caps
        let dynacast = request.dynacast
        pool.run(on: worker) { media in
            media.addPublisher(parameters, constraints: constraints, caps: caps, dynacast: dynacast)
            DataChannelRoutes.open(dataEndpoint, on: media, handle: handle)
        }
        recordings.start(handle, request: request, parameters: parameters, worker: worker)
        registry.emitStatus(handle, .pending, info: nil, ends: false)
        return MediaAnswer(handle: handle, sdp: answer)
    }

    public func play(_ request: PlayRequest) throws(MediaError) -> MediaAnswer {
        let published = registry.publisherTracks(of: request.stream)
        let remote = published == nil ? try edge.remoteCodecs(of: request.stream) : nil
        try registry.checkPlayer(of: request.stream, wait: request.wait, relayed: remote != nil)
        let home = pool.home(of: request.stream)
        let worker = pool.leastLoaded(handlesOn: registry.handleWorkers + precalls.workers)
        let handle = RandomToken.handle(prefix: "play")
        let (answer, parameters, dataChannel) = try negotiator.negotiate(
            offer: request.offer, role: .play, handle: handle, stream: request.stream,
            candidates: pool.candidates(worker: worker), publisherTracks: remote.map(EdgeLinks.tracks) ?? published,
            constraints: request.constraints, acceptsDataChannel: request.dataChannels != nil,
            red: request.red, consentTimeoutMicros: config.consentTimeoutMicros)
        let dataEndpoint = routes.endpoint(dataChannel, policy: request.dataChannels, handle: handle,
                                           session: request.session, stream: request.stream, role: .play)
        registry.addPlayer(handle, session: request.session, stream: request.stream, wait: request.wait,
                           worker: worker, dataChannels: dataEndpoint != nil)
        if let remote { edge.relay(request.stream, codecs: remote) }
        let constraints = request.constraints
        let instantJoin = request.instantJoin
        pool.run(on: worker) { media in
            media.addPlayer(parameters, constraints: constraints, home: home, instantJoin: instantJoin)
            DataChannelRoutes.open(dataEndpoint, on: media, handle: handle)
        }
        registry.emitStatus(handle, .pending, info: nil, ends: false)
        if remote != nil { edge.ensureLink(request.stream) }
        if dataEndpoint != nil { edge.updateData(request.stream) }
        return MediaAnswer(handle: handle, sdp: answer)
    }

    public func precall(_ request: PrecallRequest) throws(MediaError) -> MediaAnswer {
        try precalls.start(request, worker: pool.leastLoaded(handlesOn: registry.handleWorkers + precalls.workers))
    }

    public func stop(handle: StreamHandle) throws(MediaError) {
        if precalls.owns(handle) {
            precalls.end(handle)
            return
        }
        guard registry.contains(handle) else { throw .unknownHandle }
        end(handle, info: StatusInfo.user)
    }

    public func stats(handle: StreamHandle) throws(MediaError) -> HandleStats {
        if precalls.owns(handle) { throw .wrongRole }
        return try registry.stats(handle)
    }

    public func requestKeyFrame(handle: StreamHandle) throws(MediaError) {
        let worker = try publishOrPlayWorker(handle)
        pool.run(on: worker) { $0.requestKeyFrame(for: handle) }
    }

    public func update(handle: StreamHandle, constraints: StreamConstraints) throws(MediaError) {
        let worker = try publishOrPlayWorker(handle)
        pool.run(on: worker) { $0.update(handle, constraints: constraints) }
    }

    /// A pre-call test's handle is refused (wrong role), an unknown one too.
    private func publishOrPlayWorker(_ handle: StreamHandle) throws(MediaError) -> Int {
        if precalls.owns(handle) { throw .wrongRole }
        guard let worker = registry.worker(of: handle) else { throw .unknownHandle }
        return worker
    }

    public func setMuted(handle: StreamHandle, kind: MediaKind, muted: Bool) throws(MediaError) {
        if precalls.owns(handle) { throw .wrongRole }
        try registry.setMuted(handle: handle, kind: kind, muted: muted)
    }

    /// Server-side (moderator) mute from the admin API. It outranks the publisher's own.
    public func setServerMuted(stream name: String, kind: MediaKind, muted: Bool) throws(MediaError) {
        try registry.setServerMuted(stream: name, kind: kind, muted: muted)
    }

    /// The handle's data channels and their counters (for getStats).
    public func dataChannelStats(handle: StreamHandle) -> [DataChannelStats] {
        routes.stats(handle: handle)
    }

    public func endSession(_ session: SessionID) {
        precalls.endSession(session)
        let owned = registry.handles(ownedBy: session)
        // Publishers first, so the session's own players are not told twice.
        for (handle, role) in owned where role == .publish {
            end(handle, info: StatusInfo.sessionDisconnect)
        }
        for (handle, role) in owned where role == .play && registry.contains(handle) {
            end(handle, info: StatusInfo.sessionDisconnect)
        }
    }
}
