import SluiceDataChannel
import SluiceMedia
import SluiceTransport
import SluiceVocabulary
import SluiceWire

/// The origin's record of a link it serves.
struct OriginLink {
    var handle: StreamHandle
    var stream: String
    var edgeNode: String
    var worker: Int
    /// Its end of the stream's data is open in the SCTP stack (MediaEngine+LinkData.swift).
    var data = false
}

/// The edge's record of the link that feeds one stream: asked for (no `link` yet), or up.
struct EdgeLink {
    var ufrag: String
    var password: String
    var link: String?
    var handle: StreamHandle?
    /// The link's packets per layer, for /metrics (MediaEngine+LinkLayers.swift).
    var counters: LinkLayerCounters?
    /// Its end of the stream's data is open (or will be, once its DTLS is up): only while a
    /// player here has data channels (MediaEngine+LinkData.swift).
    var data = false
}

/// An origin's answer to one of this edge's requests, as it comes back from the cluster.
struct LinkResult: Sendable {
    var stream: String
    var ufrag: String
    var result: Result<LinkAnswer, LinkFailure>
}

/// Relay links between cluster nodes (docs/cluster.md, "Relay links"). On the origin, a link
/// is a consumer of the stream on its home worker that forwards every layer on its own SSRC to
/// one edge node. On the edge, the link is the stream's source: a producer whose publisher is
/// the origin, on the edge's home worker for the stream, so the edge's players on any worker
/// are fed from it as from a local publisher. One link per stream and edge, however many
/// players the edge has.
extension MediaEngine {
    /// A link's ICE consent lapses after this long without a check (origin) or an answer
    /// (edge; it checks every 2 s): nodes sit on one network, so a node that died is noticed
    /// within seconds, not after a browser's `iceConsentTimeoutSeconds`.
    /// A claim's TTL: after an outage, every live node has claimed its streams again by then.
    static let registrySettleMicros: UInt64 = 3_000_000

    var linkConsentTimeoutMicros: UInt64 {
        UInt64(config.iceConsentTimeoutSeconds > 0 ? min(config.iceConsentTimeoutSeconds, 5) : 5) * 1_000_000
    }

    // MARK: Origin

    /// A link of `request.stream` to the edge that asks. Control thread.
    public func openLink(_ request: LinkRequest) throws(MediaError) -> LinkAnswer {
        guard let entry = streams[request.stream], entry.publisher != nil else { throw .streamNotFound }
        let home = workerIndex(for: request.stream)
        let id = RandomToken.make(length: 16)
        let handle = "link-" + id
        let ufrag = RandomToken.make(length: 8)
        let password = RandomToken.make(length: 24)
        let (audio, video) = entry.publisherTracks
        let audioSSRC = audio.map { _ in UInt32.random(in: 1...UInt32.max) }
        let layerCount = max(1, video?.simulcast.count ?? 1)
        let videoSSRCs = video == nil ? [] : (0..<layerCount).map { _ in UInt32.random(in: 1...UInt32.max) }
        let parameters = LinkParameters(
            handle: handle, stream: request.stream,
            transport: TransportParameters(
                localUfrag: ufrag, localPassword: password, remoteUfrag: request.iceUfrag,
                remotePassword: request.icePassword, remoteFingerprintAlgorithm: request.fingerprintAlgorithm,
                remoteFingerprint: request.fingerprint, dtlsRole: .server,
                consentTimeoutMicros: linkConsentTimeoutMicros),
            audioSSRC: audioSSRC, videoSSRCs: videoSSRCs, mute: Self.linkMute(entry))
        let data = originDataEndpoint(handle: handle, stream: request.stream, policy: entry.publisherData)
        originLinks[id] = OriginLink(handle: handle, stream: request.stream, edgeNode: request.edgeNode, worker: home,
                                     data: data != nil)
        linkHandles[handle] = id
        let media = workerStreams[home]
        workers[home].execute {
            media.addLink(parameters)
            Self.openDataChannels(data, on: media, handle: handle)
        }
        return LinkAnswer(
            link: id, iceUfrag: ufrag, icePassword: password, fingerprintAlgorithm: "sha-256",
            fingerprint: negotiator.fingerprint,
            candidateIP: relayHost ?? config.announcedAddresses.first ?? config.bindAddress.host,
            candidatePort: Int(workers[home].localAddress.port),
            audio: audio.map { LinkTrack(codec: Self.codec(of: $0), extensions: $0.extensions, ssrcs: audioSSRC.map { [$0] } ?? []) },
            video: video.map { LinkTrack(codec: Self.codec(of: $0), extensions: $0.extensions, ssrcs: videoSSRCs) })
    }

    /// The edge no longer wants the link (or it failed).
    public func closeLink(_ link: String) {
        guard let origin = originLinks.removeValue(forKey: link) else { return }
        linkHandles[origin.handle] = nil
        let media = workerStreams[origin.worker]
        let handle = origin.handle
        let data = origin.data
        workers[origin.worker].execute {
            media.remove(handle)
            if data { SCTPStack.shared.close(handle) }
        }
    }

    /// The links this node serves as an origin.
    public var linkViews: [LinkView] {
        originLinks.map { LinkView(link: $0.key, stream: $0.value.stream, edgeNode: $0.value.edgeNode) }
            .sorted { $0.link < $1.link }
    }

    /// The codecs of a stream published on this node (for the cluster's stream record).
    public func codecs(of stream: String) -> StreamCodecs? {
        guard let entry = streams[stream], entry.publisher != nil else { return nil }
        let (audio, video) = entry.publisherTracks
        return StreamCodecs(audio: audio.map(Self.codec), video: video.map(Self.codec),
                            layers: max(1, video?.simulcast.count ?? 1))
    }

    static func codec(of track: TrackParameters) -> StreamCodec {
        StreamCodec(name: track.codecName, payloadType: track.payloadType, clockRate: track.clockRate, fmtp: track.fmtp)
    }

    // MARK: Edge

    /// The links this node holds as an edge, by stream (only those that are up).
    public var edgeLinks: [String: String] { edgeLinkState.compactMapValues(\.link) }

    /// The codecs of another node's stream, for a play here; nil when no node publishes it.
    /// Without Redis the cluster cannot say: a play of a name this node does not publish gets
    /// 1013 then, rather than a wait that could never be met.
    func remoteCodecs(of stream: String) throws(MediaError) -> StreamCodecs? {
        guard let remoteStreams else { return nil }
        guard remoteStreams.available else { throw .clusterUnavailable }
        // Published on its origin less than a heartbeat ago, a stream is not cached here yet.
        return remoteStreams.codecs(of: stream) ?? remoteStreams.lookUp(stream)
    }

    /// What a player's answer needs of a remote publisher's tracks: its codecs.
    static func tracks(_ codecs: StreamCodecs) -> (audio: TrackParameters?, video: TrackParameters?) {
        func track(_ codec: StreamCodec?, _ kind: MediaKind) -> TrackParameters? {
            codec.map {
                TrackParameters(kind: kind, mid: kind == .audio ? "0" : "1", codecName: $0.name, fmtp: $0.fmtp,
                                payloadType: $0.payloadType, rtxPayloadType: nil, clockRate: $0.clockRate,
                                extensions: NegotiatedExtensions(), remoteSSRCs: [], remoteRTXSSRCs: [], localSSRC: 0,
                                feedback: RTCPFeedbackSet())
            }
        }
        return (track(codecs.audio, .audio), track(codecs.video, .video))
    }

    /// Asks the stream's origin for a link unless one is up or on its way.
    func ensureLink(_ stream: String) {
        guard let remoteStreams, edgeLinkState[stream] == nil else { return }
        let ufrag = RandomToken.make(length: 8)
        let password = RandomToken.make(length: 24)
        edgeLinkState[stream] = EdgeLink(ufrag: ufrag, password: password)
        let request = LinkRequest(stream: stream, edgeNode: remoteStreams.nodeID, iceUfrag: ufrag, icePassword: password,
                                  fingerprintAlgorithm: "sha-256", fingerprint: negotiator.fingerprint)
        remoteStreams.open(request) { [weak self] result in
            guard let self else { return }
            linkResults.withLock { $0.append(LinkResult(stream: stream, ufrag: ufrag, result: result)) }
            wakeup()
        }
    }

    /// The origin answered: the link's producer goes to the stream's home worker here.
    func linkAnswered(_ answer: LinkResult) {
        guard var link = edgeLinkState[answer.stream], link.ufrag == answer.ufrag, link.link == nil else {
            // Not wanted any more (the players left meanwhile): let the origin drop it.
            if case .success(let opened) = answer.result { remoteStreams?.close(stream: answer.stream, link: opened.link) }
            return
        }
        switch answer.result {
        case .failure:
            // Asked again by the next check (about a second), while players are left.
            edgeLinkState[answer.stream] = nil
        case .success(let opened):
            guard let candidate = SocketAddress(host: opened.candidateIP, port: UInt16(clamping: opened.candidatePort)) else {
                edgeLinkState[answer.stream] = nil
                remoteStreams?.close(stream: answer.stream, link: opened.link)
                return
            }
            let handle = "link-" + opened.link
            link.link = opened.link
            link.handle = handle
            let counters = LinkLayerCounters()
            link.counters = counters
            edgeLinkState[answer.stream] = link
            linkHandles[handle] = answer.stream
            let parameters = EndpointParameters(
                handle: handle, stream: answer.stream, role: .publish,
                audio: Self.edgeTrack(opened.audio, .audio), video: Self.edgeTrack(opened.video, .video),
                transport: TransportParameters(
                    localUfrag: link.ufrag, localPassword: link.password, remoteUfrag: opened.iceUfrag,
                    remotePassword: opened.icePassword, remoteFingerprintAlgorithm: opened.fingerprintAlgorithm,
                    remoteFingerprint: opened.fingerprint, dtlsRole: .client,
                    consentTimeoutMicros: linkConsentTimeoutMicros,
                    remoteCandidate: candidate))
            let home = workerIndex(for: answer.stream)
            let media = workerStreams[home]
            let bind = SocketAddress(host: config.bindAddress.host, port: 0) ?? config.bindAddress
            workers[home].execute { media.addLinkSource(parameters, bindAddress: bind, counters: counters) }
            updateEdgeData(answer.stream)
        }
    }

    /// The edge's producer of a link: the origin's SSRCs as its layers.
    static func edgeTrack(_ track: LinkTrack?, _ kind: MediaKind) -> TrackParameters? {
        guard let track else { return nil }
        var parameters = TrackParameters(
            kind: kind, mid: kind == .audio ? "0" : "1", codecName: track.codec.name, fmtp: track.codec.fmtp,
            payloadType: track.codec.payloadType, rtxPayloadType: nil, clockRate: track.codec.clockRate,
            extensions: track.extensions, remoteSSRCs: track.ssrcs, remoteRTXSSRCs: [],
            localSSRC: UInt32.random(in: 1...UInt32.max), feedback: RTCPFeedbackSet(nack: kind == .video, pli: kind == .video))
        if kind == .video && track.ssrcs.count > 1 { parameters.simulcast = track.ssrcs.map { SimulcastLayer(ssrc: $0) } }
        return parameters
    }

    /// Drops this edge's link of `stream` (no player left, or its origin ended the stream).
    func closeEdgeLink(_ stream: String) {
        guard let link = edgeLinkState.removeValue(forKey: stream) else { return }
        if let handle = link.handle {
            linkHandles[handle] = nil
            let home = workerIndex(for: stream)
            let media = workerStreams[home]
            let data = link.data
            workers[home].execute {
                media.remove(handle)
                if data { SCTPStack.shared.close(handle) }
            }
        }
        if let id = link.link { remoteStreams?.close(stream: stream, link: id) }
    }

    /// A link's transport failed or its media stopped, on either side. The origin drops it;
    /// the edge drops it and asks again at the next check, while its players stay (their
    /// numbering continues, and they get a key frame when the new link brings media).
    func linkFailed(_ handle: StreamHandle, reason: FailureReason) {
        guard let key = linkHandles[handle] else { return }
        if originLinks[key] != nil {
            closeLink(key)
        } else if edgeLinkState[key]?.handle == handle {
            closeEdgeLink(key)
            // Asked for again at once while players wait on it: they see a gap, not an end.
            if let entry = streams[key], !entry.players.isEmpty, entry.remoteCodecs != nil { ensureLink(key) }
        }
    }

    /// From the control thread after each heartbeat's snapshot (500 ms) and once a second:
    /// waiting players of streams that another node publishes now get a link, lost links are
    /// asked for again, and relayed streams that no node publishes any more end for their
    /// players, with an info that tells a dead origin node from a publisher's stop
    /// (RemoteStreamVerdict.swift). Reads the cached registry only.
    public func checkRemoteStreams() {
        guard let remoteStreams else { return }
        let now = MonotonicClock.nowMicros()
        guard remoteStreams.available else {
            registryLostMicros = now
            return
        }
        // Just back from an outage (Redis restarted empty, say), the registry may not list a
        // live stream yet: its node claims it again at its next heartbeat. Ending relayed
        // streams waits until every node had the time to.
        let settled = registryLostMicros.map { now &- $0 >= Self.registrySettleMicros } ?? true
        for name in streams.keys.sorted() {
            guard var entry = streams[name], entry.publisher == nil, !entry.players.isEmpty else { continue }
            let current = remoteStreams.codecs(of: name).map { (codecs: $0, origin: remoteStreams.originNode(of: name)) }
            switch RemoteStreamVerdict.decide(relaying: entry.remoteCodecs != nil, relayedFrom: entry.remoteOrigin,
                                              current: current, settled: settled, isAlive: remoteStreams.isNodeAlive) {
            case .relay(let codecs, let origin):
                if entry.remoteCodecs == nil || entry.remoteOrigin == nil {
                    entry.remoteCodecs = entry.remoteCodecs ?? codecs
                    entry.remoteOrigin = entry.remoteOrigin ?? origin
                    streams[name] = entry
                }
                ensureLink(name)
            case .end(let info):
                closeEdgeLink(name)
                entry.remoteCodecs = nil
                entry.remoteOrigin = nil
                publisherGone(&entry, info: info)
                streams[name] = entry.players.isEmpty ? nil : entry
            case .hold:
                break
            }
        }
    }
}
