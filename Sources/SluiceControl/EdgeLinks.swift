import SluiceDataChannel
import SluiceMedia
import SluiceTransport
import SluiceVocabulary
import SluiceWire

/// The relay links this node holds as an edge (docs/cluster.md, "Relay links"): for a stream
/// published on another node, the link is the stream's source, a producer whose publisher is
/// the origin, on this node's home worker for the stream, so the players here on any worker
/// are fed from it as from a local publisher. One link per stream, however many players it
/// has; asked for through the cluster (`RemoteStreams`), answered on the cluster's threads.
/// `OriginLinks` is the other end. Control thread.
final class EdgeLinks {
    /// The record of the link that feeds one stream: asked for (no `link` yet), or up.
    private struct Link {
        var ufrag: String
        var password: String
        var link: String?
        var handle: StreamHandle?
        /// The link's packets per layer, for /metrics.
        var counters: LinkLayerCounters?
        /// Its end of the stream's data is open (or will be, once its DTLS is up): only while a
        /// player here has data channels.
        var data = false
    }

    /// A stream another node publishes, which players here are fed from over a link.
    private struct Relayed {
        var codecs: StreamCodecs
        /// The node those codecs came from, so the end of its stream can name the cause.
        var origin: String?
    }

    /// An origin's answer to one of this edge's requests, as it comes back from the cluster.
    private struct Answer: Sendable {
        var stream: String
        var ufrag: String
        var result: Result<LinkAnswer, LinkFailure>
    }

    /// A claim's TTL: after an outage, every live node has claimed its streams again by then.
    static let registrySettleMicros: UInt64 = 3_000_000

    /// The cluster, for plays of streams published on other nodes; nil on a single node.
    /// Set before the server starts.
    var remoteStreams: RemoteStreams?
    /// By stream.
    private var links: [String: Link] = [:]
    /// Link handles to their stream.
    private var streams: [StreamHandle: String] = [:]
    /// By stream; dropped with the stream's entry in the registry (`streamGone`) or when its
    /// origin ended it.
    private var relayed: [String: Relayed] = [:]
    /// Answers to this edge's link requests, from the cluster's threads.
    private let answers: Inbox<Answer>
    /// When `checkRemoteStreams` last found the registry unreachable.
    private var registryLostMicros: UInt64?
    private let registry: StreamRegistry
    private let routes: DataChannelRoutes
    private let pool: WorkerPool
    private let config: MediaEngineConfig
    private let fingerprint: String

    init(registry: StreamRegistry, routes: DataChannelRoutes, pool: WorkerPool, outbox: Outbox,
         config: MediaEngineConfig, fingerprint: String) {
        self.registry = registry
        self.routes = routes
        self.pool = pool
        self.config = config
        self.fingerprint = fingerprint
        answers = Inbox(wake: { [weak outbox] in outbox?.wake() })
    }

    // MARK: Plays

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
                var track = TrackParameters(kind: kind, mid: kind == .audio ? "0" : "1", codecName: $0.name, fmtp: $0.fmtp,
                                            payloadType: $0.payloadType, rtxPayloadType: nil, clockRate: $0.clockRate,
                                            extensions: NegotiatedExtensions(), remoteSSRCs: [], remoteRTXSSRCs: [],
                                            localSSRC: 0, feedback: RTCPFeedbackSet())
                track.redPayloadType = $0.redPayloadType
                return track
            }
        }
        return (track(codecs.audio, .audio), track(codecs.video, .video))
    }

    /// A player here is fed `stream` from another node, which publishes it with `codecs`.
    func relay(_ stream: String, codecs: StreamCodecs) {
        let origin = relayed[stream]?.origin ?? remoteStreams?.originNode(of: stream)
        relayed[stream] = Relayed(codecs: codecs, origin: origin)
    }

    /// The registry dropped the stream (no publisher and no player left): so does its link.
    func streamGone(_ stream: String) {
        close(stream)
        relayed[stream] = nil
    }

    // MARK: Links

    /// Asks the stream's origin for a link unless one is up or on its way.
    func ensureLink(_ stream: String) {
        guard let remoteStreams, links[stream] == nil else { return }
        let ufrag = RandomToken.make(length: 8)
        let password = RandomToken.make(length: 24)
        links[stream] = Link(ufrag: ufrag, password: password)
        let request = LinkRequest(stream: stream, edgeNode: remoteStreams.nodeID, iceUfrag: ufrag, icePassword: password,
                                  fingerprintAlgorithm: "sha-256", fingerprint: fingerprint)
        remoteStreams.open(request) { [weak answers] result in
            answers?.push(Answer(stream: stream, ufrag: ufrag, result: result))
        }
    }

    /// From `drainEvents`: the origins' answers that came since.
    func drainAnswers() {
        for answer in answers.takeAll() { answered(answer) }
    }

    /// The origin answered: the link's producer goes to the stream's home worker here.
    private func answered(_ answer: Answer) {
        guard var link = links[answer.stream], link.ufrag == answer.ufrag, link.link == nil else {
            // Not wanted any more (the players left meanwhile): let the origin drop it.
            if case .success(let opened) = answer.result { remoteStreams?.close(stream: answer.stream, link: opened.link) }
            return
        }
        switch answer.result {
        case .failure:
            // Asked again by the next check (about a second), while players are left.
            links[answer.stream] = nil
        case .success(let opened):
            guard let candidate = SocketAddress(host: opened.candidateIP, port: UInt16(clamping: opened.candidatePort)) else {
                links[answer.stream] = nil
                remoteStreams?.close(stream: answer.stream, link: opened.link)
                return
            }
            let handle = "link-" + opened.link
            link.link = opened.link
            link.handle = handle
            let counters = LinkLayerCounters()
            link.counters = counters
            links[answer.stream] = link
            streams[handle] = answer.stream
            let parameters = EndpointParameters(
                handle: handle, stream: answer.stream, role: .publish,
                audio: Self.track(opened.audio, .audio), video: Self.track(opened.video, .video),
                transport: TransportParameters(
                    localUfrag: link.ufrag, localPassword: link.password, remoteUfrag: opened.iceUfrag,
                    remotePassword: opened.icePassword, remoteFingerprintAlgorithm: opened.fingerprintAlgorithm,
                    remoteFingerprint: opened.fingerprint, dtlsRole: .client,
                    consentTimeoutMicros: config.linkConsentTimeoutMicros,
                    remoteCandidate: candidate))
            let bind = SocketAddress(host: config.bindAddress.host, port: 0) ?? config.bindAddress
            pool.run(on: pool.home(of: answer.stream)) { $0.addLinkSource(parameters, bindAddress: bind, counters: counters) }
            updateData(answer.stream)
        }
    }

    /// The link's producer: the origin's SSRCs as its layers.
    private static func track(_ track: LinkTrack?, _ kind: MediaKind) -> TrackParameters? {
        guard let track else { return nil }
        var parameters = TrackParameters(
            kind: kind, mid: kind == .audio ? "0" : "1", codecName: track.codec.name, fmtp: track.codec.fmtp,
            payloadType: track.codec.payloadType, rtxPayloadType: nil, clockRate: track.codec.clockRate,
            extensions: track.extensions, remoteSSRCs: track.ssrcs, remoteRTXSSRCs: [],
            localSSRC: UInt32.random(in: 1...UInt32.max), feedback: RTCPFeedbackSet(nack: kind == .video, pli: kind == .video))
        if kind == .video && track.ssrcs.count > 1 { parameters.simulcast = track.ssrcs.map { SimulcastLayer(ssrc: $0) } }
        parameters.encrypted = track.encrypted
        return parameters
    }

    /// Drops the link of `stream` (no player left, or its origin ended the stream).
    private func close(_ stream: String) {
        guard let link = links.removeValue(forKey: stream) else { return }
        if let handle = link.handle {
            streams[handle] = nil
            let data = link.data
            pool.run(on: pool.home(of: stream)) { media in
                media.remove(handle)
                if data { SCTPStack.shared.close(handle) }
            }
        }
        if let id = link.link { remoteStreams?.close(stream: stream, link: id) }
    }

    /// A link's transport failed or its media stopped: it is dropped and asked for again at
    /// once while players wait on it, who stay (they see a gap, not an end: their numbering
    /// continues, and they get a key frame when the new link brings media).
    func failed(_ handle: StreamHandle) {
        guard let stream = streams[handle], links[stream]?.handle == handle else { return }
        close(stream)
        if registry.hasPlayers(stream), relayed[stream] != nil { ensureLink(stream) }
    }

    /// The origin's mute state of a stream this node relays changed.
    func muted(_ handle: StreamHandle, flags: UInt8) {
        guard let stream = streams[handle], links[stream]?.handle == handle else { return }
        registry.applyLinkMute(stream, LinkMuteState(flags: flags))
    }

    // MARK: Data

    /// The edge's end of `stream`'s data across its link (docs/cluster.md, "Data across
    /// nodes"): the link's own DTLS carries an SCTP association beside its media, and here the
    /// link is the stream's publisher for the players' data. Opened once the link's DTLS is up
    /// while a player here has data channels, closed when none is left (the origin's end then
    /// waits for another), so a link whose edge has none carries no data.
    func updateData(_ stream: String) {
        guard var link = links[stream], let handle = link.handle else { return }
        let wanted = registry.hasDataChannelPlayers(stream)
        guard wanted != link.data else { return }
        link.data = wanted
        links[stream] = link
        let home = pool.home(of: stream)
        guard wanted else {
            pool.run(on: home) { media in
                media.cancelLinkConnected(handle)
                SCTPStack.shared.close(handle)
            }
            return
        }
        let endpoint = routes.relayEndpoint(handle: handle, stream: stream, role: .publish, relay: .edge,
                                            policy: DataChannelPolicy(messagesPerSecond: 0, bytesPerSecond: 0))
        pool.run(on: home) { media in
            media.whenLinkConnected(handle) { transport in SCTPStack.shared.open(endpoint, transport: transport) }
        }
    }

    // MARK: The registry's view

    /// From the control thread after each heartbeat's snapshot (500 ms) and once a second:
    /// waiting players of streams that another node publishes now get a link, lost links are
    /// asked for again, and relayed streams that no node publishes any more end for their
    /// players, with an info that tells a dead origin node from a publisher's stop
    /// (RemoteStreamVerdict.swift). Reads the cached registry only.
    func checkRemoteStreams() {
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
        for name in registry.unpublishedStreams {
            let known = relayed[name]
            let current = remoteStreams.codecs(of: name).map { (codecs: $0, origin: remoteStreams.originNode(of: name)) }
            switch RemoteStreamVerdict.decide(relaying: known != nil, relayedFrom: known?.origin,
                                              current: current, settled: settled, isAlive: remoteStreams.isNodeAlive) {
            case .relay(let codecs, let origin):
                if known == nil || known?.origin == nil {
                    relayed[name] = Relayed(codecs: known?.codecs ?? codecs, origin: known?.origin ?? origin)
                }
                ensureLink(name)
            case .end(let info):
                close(name)
                relayed[name] = nil
                registry.relayEnded(name, info: info)
            case .hold:
                break
            }
        }
    }

    // MARK: Figures

    /// The links that are up, by stream.
    var upLinks: [String: String] { links.compactMapValues(\.link) }

    /// Each link's packets per video layer.
    var layerPackets: [LinkLayerPackets] {
        links.sorted { $0.key < $1.key }.flatMap { stream, link in
            (link.counters?.layerPackets ?? []).enumerated().map {
                LinkLayerPackets(stream: stream, layer: $0.offset, packets: $0.element)
            }
        }
    }

    var count: Int { links.count }
    var handleCount: Int { streams.count }
    var answersWaiting: Int { answers.count }
    /// Streams relayed from another node (one per registry entry at most).
    var relayedCount: Int { relayed.count }
}
