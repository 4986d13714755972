import SluiceDataChannel
import SluiceMedia
import SluiceTransport
import SluiceVocabulary

/// The relay links this node serves as a stream's origin (docs/cluster.md, "Relay links"): a
/// link is a consumer of the stream on its home worker that forwards every layer on its own
/// SSRC to one edge node, however many players the edge has. The links carry the stream's
/// mute state to their edges ("Link messages"), and its data channels when the publisher has
/// some ("Data across nodes"). `EdgeLinks` is the other end. Control thread.
final class OriginLinks {
    /// The origin's record of a link it serves.
    private struct Link {
        var handle: StreamHandle
        var stream: String
        var edgeNode: String
        var worker: Int
        /// Its end of the stream's data is open in the SCTP stack.
        var data = false
    }

    /// By link id.
    private var links: [String: Link] = [:]
    /// Link handles to their link id.
    private var ids: [StreamHandle: String] = [:]
    /// The host other nodes reach this one's media at (`cluster.relayAddress`); the first
    /// announced address when nil.
    var relayHost: String?
    private let registry: StreamRegistry
    private let routes: DataChannelRoutes
    private let pool: WorkerPool
    private let config: MediaEngineConfig
    private let fingerprint: String

    init(registry: StreamRegistry, routes: DataChannelRoutes, pool: WorkerPool, config: MediaEngineConfig,
         fingerprint: String) {
        self.registry = registry
        self.routes = routes
        self.pool = pool
        self.config = config
        self.fingerprint = fingerprint
    }

    /// A link of `request.stream` to the edge that asks.
    func open(_ request: LinkRequest) throws(MediaError) -> LinkAnswer {
        guard let publisher = registry.publisher(of: request.stream), let mute = registry.linkMute(of: request.stream)
        else { throw .streamNotFound }
        let home = pool.home(of: request.stream)
        let id = RandomToken.make(length: 16)
        let handle = "link-" + id
        let ufrag = RandomToken.make(length: 8)
        let password = RandomToken.make(length: 24)
        let (audio, video) = publisher.tracks
        let audioSSRC = audio.map { _ in UInt32.random(in: 1...UInt32.max) }
        let layerCount = max(1, video?.simulcast.count ?? 1)
        let videoSSRCs = video == nil ? [] : (0..<layerCount).map { _ in UInt32.random(in: 1...UInt32.max) }
        let parameters = LinkParameters(
            handle: handle, stream: request.stream,
            transport: TransportParameters(
                localUfrag: ufrag, localPassword: password, remoteUfrag: request.iceUfrag,
                remotePassword: request.icePassword, remoteFingerprintAlgorithm: request.fingerprintAlgorithm,
                remoteFingerprint: request.fingerprint, dtlsRole: .server,
                consentTimeoutMicros: config.linkConsentTimeoutMicros),
            audioSSRC: audioSSRC, videoSSRCs: videoSSRCs, mute: mute)
        let data = dataEndpoint(handle: handle, stream: request.stream, policy: publisher.data)
        links[id] = Link(handle: handle, stream: request.stream, edgeNode: request.edgeNode, worker: home,
                         data: data != nil)
        ids[handle] = id
        pool.run(on: home) { media in
            media.addLink(parameters)
            DataChannelRoutes.open(data, on: media, handle: handle)
        }
        return LinkAnswer(
            link: id, iceUfrag: ufrag, icePassword: password, fingerprintAlgorithm: "sha-256",
            fingerprint: fingerprint,
            candidateIP: relayHost ?? config.announcedAddresses.first ?? config.bindAddress.host,
            candidatePort: Int(pool.workers[home].localAddress.port),
            audio: audio.map { LinkTrack(codec: Self.codec(of: $0), extensions: $0.extensions, ssrcs: audioSSRC.map { [$0] } ?? []) },
            video: video.map { LinkTrack(codec: Self.codec(of: $0), extensions: $0.extensions, ssrcs: videoSSRCs,
                                         encrypted: $0.encrypted) })
    }

    /// The origin's end of the stream's data: open beside the link when the publisher has data
    /// channels, waiting for the edge (which starts the association only while a player there
    /// has data channels). On the origin the link is one more player of the stream's data: it
    /// gets the publisher's messages of the labels the edge opened, and what it sends goes to
    /// the publisher, and to the players when the app lets players reach players. Messages
    /// from it were counted against their senders' sessions on the edge, so it has no rate of
    /// its own.
    private func dataEndpoint(handle: StreamHandle, stream: String, policy: DataChannelPolicy?) -> DataChannelEndpoint? {
        guard let policy else { return nil }
        return routes.relayEndpoint(handle: handle, stream: stream, role: .play, relay: .origin,
                                    policy: DataChannelPolicy(playersReachPlayers: policy.playersReachPlayers,
                                                              messagesPerSecond: 0, bytesPerSecond: 0))
    }

    /// The edge no longer wants the link (or it failed).
    func close(_ id: String) {
        guard let link = links.removeValue(forKey: id) else { return }
        ids[link.handle] = nil
        let handle = link.handle
        let data = link.data
        pool.run(on: link.worker) { media in
            media.remove(handle)
            if data { SCTPStack.shared.close(handle) }
        }
    }

    /// A link's transport failed or its media stopped: it is dropped, and the edge asks again.
    /// false for a handle that is none of this node's origin links.
    func failed(_ handle: StreamHandle) -> Bool {
        guard let id = ids[handle], links[id] != nil else { return false }
        close(id)
        return true
    }

    /// A mute of `name` changed: its links tell their edges, whose players get the same
    /// `audioMuted`, `videoUnmuted`, ... events (with the same `by`) as the players here.
    func muteChanged(_ name: String) {
        guard links.values.contains(where: { $0.stream == name }), let mute = registry.linkMute(of: name) else { return }
        pool.run(on: pool.home(of: name)) { $0.setLinkMute(name, mute) }
    }

    var views: [LinkView] {
        links.map { LinkView(link: $0.key, stream: $0.value.stream, edgeNode: $0.value.edgeNode) }
            .sorted { $0.link < $1.link }
    }

    /// The codecs of a stream published on this node (for the cluster's stream record).
    func codecs(of stream: String) -> StreamCodecs? {
        guard let (audio, video) = registry.publisherTracks(of: stream) else { return nil }
        return StreamCodecs(audio: audio.map(Self.codec), video: video.map(Self.codec),
                            layers: max(1, video?.simulcast.count ?? 1))
    }

    static func codec(of track: TrackParameters) -> StreamCodec {
        StreamCodec(name: track.codecName, payloadType: track.payloadType, clockRate: track.clockRate, fmtp: track.fmtp,
                    redPayloadType: track.redPayloadType)
    }

    /// What the links sent; the counts themselves are read off the workers' ledgers.
    var packets: LinkPacketFigures {
        let read = pool.linkPackets
        var figures = LinkPacketFigures()
        figures.total = read.total
        figures.links = links.compactMap { id, link in
            // A link the worker has not made yet (or has removed) counts nothing.
            read.live[link.handle].map {
                LinkPacketFigures.Link(link: id, stream: link.stream, edgeNode: link.edgeNode, packets: $0)
            }
        }.sorted { $0.link < $1.link }
        return figures
    }

    var count: Int { links.count }
    var handleCount: Int { ids.count }
}
