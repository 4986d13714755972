import SluiceRTP
import SluiceTransport
import SluiceVocabulary
import SluiceWire

/// The streams of one worker: its routers, producers and consumers (`MediaWorker`, in
/// SluiceTransport, is the loop and sockets they run on). Every method runs on the
/// worker's thread (reached through `MediaWorker.execute`), so none of it is locked.
///
/// A stream's home is the worker its publisher is on; its players may be on any worker. A
/// worker with players of a stream whose home is another worker relays it: its router is fed
/// by a `RelayIngress`, and the home's router hands it every packet (`WorkerRelay`).
package final class WorkerStreams {
    package let worker: MediaWorker
    package let security: DTLSSecurity
    let relay: WorkerRelay
    package var report: (WorkerEvent) -> Void = { _ in }
    package var statsBoard: StatsBoard?
    /// `rtc.rtpTimeoutSeconds` in microseconds, for every publisher of this worker (0: off).
    package var rtpTimeoutMicros: UInt64 = 0

    private var routers: [String: Router] = [:]
    private var producers: [StreamHandle: Producer] = [:]
    private var consumers: [StreamHandle: Consumer] = [:]
    /// Origin: relay links to other nodes. Edge: the sockets of links from origins.
    private var links: [StreamHandle: LinkConsumer] = [:]
    private var linkSockets: [StreamHandle: WorkerSocket] = [:]
    /// Recordings, by their publisher's handle (on the stream's home).
    private var taps: [StreamHandle: RecordingTap] = [:]
    /// Pre-call tests: bound to no stream, so in no router.
    private var precalls: [StreamHandle: PrecallProbe] = [:]
    /// What this worker's links sent, for /metrics on any thread.
    package let linkPackets = LinkPacketLedger()
    /// The streams this worker relays from their home, by name.
    private var ingresses: [String: RelayIngress] = [:]
    /// Work waiting for a link source's DTLS (`whenLinkConnected`).
    private var linkConnectWaiters: [StreamHandle: [(WebRTCTransport) -> Void]] = [:]
    private var peers: [Weak] = []
    private struct Weak { weak var streams: WorkerStreams? }

    package init(worker: MediaWorker, security: DTLSSecurity) {
        self.worker = worker
        self.security = security
        relay = WorkerRelay(index: worker.index, worker: worker)
        relay.keyFramesRequested = { [unowned self] stream, requests in
            routers[stream]?.requestKeyFrames(requests)
        }
        relay.wantedLayersArrived = { [unowned self] stream, worker, mask in
            routers[stream]?.setRemoteWanted(mask, worker: worker)
        }
        relay.snapshotArrived = { [unowned self] ingress, snapshot, measured in
            guard let router = routers[ingress.stream] else { return }
            let requests = router.apply(snapshot, from: ingress, measured: measured, now: MonotonicClock.nowMicros())
            if !requests.isEmpty { ingress.requestKeyFrames(requests) }
        }
    }

    /// Connects every worker's streams to every other's, for relaying. Once, before any
    /// stream; `all[i]` is worker i's.
    package static func link(_ all: [WorkerStreams]) {
        WorkerRelay.link(all.map(\.relay))
        for streams in all { streams.peers = all.map { Weak(streams: $0) } }
    }

    /// `dynacast`: a simulcast publisher is told which layers have a taker (`LayerPauses`).
    package func addPublisher(_ parameters: EndpointParameters, constraints: StreamConstraints, caps: PublishCaps = PublishCaps(),
                              dynacast: Bool = false) {
        guard let transport = makeTransport(parameters) else { return }
        let producer = Producer(parameters: parameters, transport: transport, statsBoard: statsBoard)
        if dynacast && producer.isSimulcast {
            producer.state.layerPauses = LayerPauses(layerCount: producer.state.layers.count, now: MonotonicClock.nowMicros())
        }
        producer.capWatch = PublishCapWatch(caps: caps)
        producer.rtpActivity = RTPActivityWatch(timeoutMicros: caps.rtpTimeoutSeconds.map { UInt64(max(0, $0)) * 1_000_000 }
                                                ?? rtpTimeoutMicros)
        producer.report = report
        producer.setBitrateCap(constraints.video?.bitrateKbps ?? constraints.video?.maxBitrateKbps)
        transport.delegate = producer
        worker.addTickable(producer)
        producers[parameters.handle] = producer
        router(parameters.stream).attach(producer)
    }

    /// `home`: the worker the stream's publisher is (or will be) on; this one when nil.
    /// `instantJoin`: the player starts from a layer's cached key frame when there is one.
    package func addPlayer(_ parameters: EndpointParameters, constraints: StreamConstraints, home: Int? = nil,
                           instantJoin: Bool = true) {
        guard let transport = makeTransport(parameters) else { return }
        let consumer = Consumer(parameters: parameters, constraints: constraints, transport: transport,
                                statsBoard: statsBoard, instantJoin: instantJoin)
        consumer.report = report
        transport.delegate = consumer
        worker.addTickable(consumer)
        consumers[parameters.handle] = consumer
        if let home, home != worker.index, let router = relayedRouter(parameters.stream, home: home) {
            router.add(consumer)
        } else {
            router(parameters.stream).add(consumer)
        }
    }

    /// A pre-call test (docs/protocol.md section 6): a transport and its probe, in no stream.
    package func addPrecall(_ parameters: EndpointParameters, settings: PrecallSettings) {
        guard let transport = makeTransport(parameters) else { return }
        let probe = PrecallProbe(parameters: parameters, transport: transport, settings: settings,
                                 now: MonotonicClock.nowMicros())
        probe.report = report
        transport.delegate = probe
        worker.addTickable(probe)
        precalls[parameters.handle] = probe
    }

    /// The sizes of this worker's tables by handle and stream (worker thread), with its
    /// loop's: a leak test's count, each back to its idle size when nothing is left.
    package var tableSizes: [String: Int] {
        var sizes = worker.tableSizes
        sizes["streams.routers"] = routers.count
        sizes["streams.producers"] = producers.count
        sizes["streams.consumers"] = consumers.count
        sizes["streams.links"] = links.count
        sizes["streams.linkSockets"] = linkSockets.count
        sizes["streams.recordingTaps"] = taps.count
        sizes["streams.precalls"] = precalls.count
        sizes["streams.relayIngresses"] = ingresses.count
        sizes["streams.linkPacketCounters"] = linkPackets.liveCount
        sizes["streams.linkConnectWaiters"] = linkConnectWaiters.count
        return sizes
    }

    package func remove(_ handle: StreamHandle) {
        // A stats snapshot this worker published after the engine dropped the handle's (its
        // tick ran between the two) would stay on the board for good: drop it here too.
        statsBoard?.remove(handle)
        if let probe = precalls.removeValue(forKey: handle) {
            worker.removeTickable(probe)
            probe.transport.close()
        } else if let producer = producers.removeValue(forKey: handle) {
            linkConnectWaiters[handle] = nil
            stopRecording(handle)
            worker.removeTickable(producer)
            producer.transport.close()
            producer.releaseBuffers()
            if let socket = linkSockets.removeValue(forKey: handle) { worker.closeSocket(socket) }
            if let router = producer.router {
                router.detach(producer)
                dropIfEmpty(router)
            }
        } else if let link = links.removeValue(forKey: handle) {
            worker.removeTickable(link)
            link.transport.close()
            linkPackets.retire(handle)
            if let router = routers[link.parameters.stream] {
                router.remove(link)
                dropIfEmpty(router)
            }
        } else if let consumer = consumers.removeValue(forKey: handle) {
            worker.removeTickable(consumer)
            consumer.transport.close()
            if let router = routers[consumer.parameters.stream] {
                router.remove(consumer)
                dropIfEmpty(router)
            }
        }
    }

    // MARK: Recording (docs/design.md, "Recording")

    /// Records the stream of publisher `handle` into `ring` from now on (audio, and video of
    /// the `layer` rank), until the publisher leaves or `stopRecording`.
    package func startRecording(_ handle: StreamHandle, ring: RecordingRing, layer: RecordedLayer = .top) {
        guard taps[handle] == nil, let router = producers[handle]?.router else {
            ring.closed.store(true, ordering: .releasing)
            return
        }
        let tap = RecordingTap(publisher: handle, stream: router.stream, ring: ring, layer: layer)
        taps[handle] = tap
        router.add(tap)
        worker.addTickable(tap)
    }

    package func stopRecording(_ handle: StreamHandle) {
        guard let tap = taps.removeValue(forKey: handle) else { return }
        worker.removeTickable(tap)
        if let router = routers[tap.stream] {
            router.remove(tap)
            dropIfEmpty(router)
        }
        tap.close()
    }

    // MARK: Relay links between nodes

    /// Origin: a relay link of `parameters.stream` to an edge node, on the stream's home.
    package func addLink(_ parameters: LinkParameters) {
        guard let transport = try? WebRTCTransport(worker: worker, security: security, parameters: parameters.transport)
        else {
            report(.failed(parameters.handle, .dtlsError))
            return
        }
        let link = LinkConsumer(parameters: parameters, transport: transport)
        link.report = report
        transport.delegate = link
        worker.addTickable(link)
        links[parameters.handle] = link
        linkPackets.register(parameters.handle, link.sentPackets)
        router(parameters.stream).add(link)
    }

    /// Edge: the stream's source is a link from its origin node: a producer over a client
    /// transport, on a socket of its own (bound to `bindAddress`, any port), so links to one
    /// origin port never share a tuple.
    package func addLinkSource(_ parameters: EndpointParameters, bindAddress: SocketAddress,
                               counters: LinkLayerCounters? = nil) {
        guard let socket = try? worker.openSocket(bindAddress: bindAddress) else {
            report(.failed(parameters.handle, .dtlsError))
            return
        }
        guard let transport = try? WebRTCTransport(worker: worker, socket: socket, security: security,
                                                   parameters: parameters.transport) else {
            worker.closeSocket(socket)
            report(.failed(parameters.handle, .dtlsError))
            return
        }
        linkSockets[parameters.handle] = socket
        let producer = Producer(parameters: parameters, transport: transport, statsBoard: nil)
        // No RTP-activity watch: a stream muted on its origin sends no media over its links,
        // and the origin watches its own publisher's media. The link's state (every 250 ms)
        // tells the edge whether the link is alive.
        producer.linkWatch = LinkSourceWatch(now: MonotonicClock.nowMicros())
        producer.linkCounters = counters
        producer.report = report
        producer.connected = { [unowned self] in
            for work in linkConnectWaiters.removeValue(forKey: parameters.handle) ?? [] { work(transport) }
        }
        transport.delegate = producer
        worker.addTickable(producer)
        producers[parameters.handle] = producer
        router(parameters.stream).attach(producer)
    }

    /// Drops every stream (after the worker stopped: nothing else runs on its state).
    package func teardown() {
        for producer in producers.values { producer.releaseBuffers() }
        for ingress in ingresses.values { ingress.releasePackets() }
        for tap in taps.values { tap.close() }
        taps.removeAll()
        precalls.removeAll()
        producers.removeAll()
        consumers.removeAll()
        links.removeAll()
        ingresses.removeAll()
        routers.removeAll()
    }

    // MARK: Relaying

    /// This worker's router of a stream whose home is another worker: fed by an ingress,
    /// which the home is asked to hand packets to. nil when there is no such worker.
    private func relayedRouter(_ stream: String, home: Int) -> Router? {
        if let existing = routers[stream] { return existing }
        guard peers.indices.contains(home), let homeStreams = peers[home].streams,
              let ingress = relay.openIngress(stream: stream, home: home) else { return nil }
        let created = Router(stream: stream, relay: relay)
        routers[stream] = created
        ingresses[stream] = ingress
        worker.addTickable(ingress)
        let target = RelayTarget(worker: worker.index, key: ingress.key)
        homeStreams.worker.execute { [weak homeStreams] in homeStreams?.addRelayTarget(stream, target) }
        return created
    }

    /// Home side: another worker has players of `stream`.
    private func addRelayTarget(_ stream: String, _ target: RelayTarget) {
        router(stream).addTarget(target)
    }

    /// Home side: that worker has no players of `stream` left.
    private func removeRelayTarget(_ stream: String, _ target: RelayTarget) {
        guard let router = routers[stream] else { return }
        router.removeTarget(target)
        dropIfEmpty(router)
    }

    /// Stops relaying a stream that has no player left here.
    private func closeRelayed(_ router: Router, _ ingress: RelayIngress) {
        routers[router.stream] = nil
        ingresses[router.stream] = nil
        worker.removeTickable(ingress)
        if router.source != nil { router.detach(ingress) }
        relay.closeIngress(ingress)
        let target = RelayTarget(worker: worker.index, key: ingress.key)
        let stream = router.stream
        guard peers.indices.contains(ingress.home), let homeStreams = peers[ingress.home].streams else { return }
        homeStreams.worker.execute { [weak homeStreams] in homeStreams?.removeRelayTarget(stream, target) }
    }

    /// What the relay moved (for /metrics): packets handed to other workers and dropped on
    /// the way, packets delivered here, and buffers still held by other workers.
    package var relayCounters: (handed: Int, dropped: UInt64, delivered: UInt64) {
        (relay.handed, relay.handDrops.load(ordering: .relaxed), relay.delivered.load(ordering: .relaxed))
    }

    package func update(_ handle: StreamHandle, constraints: StreamConstraints) {
        consumers[handle]?.update(constraints)
        producers[handle]?.setBitrateCap(constraints.video?.bitrateKbps ?? constraints.video?.maxBitrateKbps)
    }

    package func setPlayerMuted(_ handle: StreamHandle, kind: MediaKind, muted: Bool) {
        consumers[handle]?.setMuted(kind, muted)
    }

    package func setStreamMuted(_ stream: String, kind: MediaKind, muted: Bool) {
        router(stream).setMuted(kind, muted)
    }

    /// Origin: the stream's mute state (and who muted), for its links to tell their edges.
    package func setLinkMute(_ stream: String, _ mute: LinkMuteState) {
        for link in links.values where link.parameters.stream == stream { link.setMute(mute.wire) }
    }

    package func requestKeyFrame(for handle: StreamHandle) {
        guard let stream = consumers[handle]?.parameters.stream else { return }
        routers[stream]?.requestKeyFrame(layer: nil)
    }

    /// The transport of a publisher or player of this worker (for what rides beside media on
    /// it: the data channels).
    package func transport(of handle: StreamHandle) -> WebRTCTransport? {
        producers[handle]?.transport ?? consumers[handle]?.transport ?? links[handle]?.transport
    }

    /// Runs `work` with the transport of the link source `handle` once its DTLS is up (at once
    /// when it is): what rides beside a link's media starts only on a connected transport.
    package func whenLinkConnected(_ handle: StreamHandle, _ work: @escaping (WebRTCTransport) -> Void) {
        guard let producer = producers[handle] else { return }
        if producer.transport.state == .connected {
            work(producer.transport)
        } else {
            linkConnectWaiters[handle, default: []].append(work)
        }
    }

    /// Forgets what waited for the link source `handle` to connect.
    package func cancelLinkConnected(_ handle: StreamHandle) {
        linkConnectWaiters[handle] = nil
    }

    /// nil (and the handle fails) when OpenSSL cannot make a session.
    private func makeTransport(_ parameters: EndpointParameters) -> WebRTCTransport? {
        let transport = try? WebRTCTransport(worker: worker, security: security, parameters: parameters.transport)
        if transport == nil { report(.failed(parameters.handle, .dtlsError)) }
        return transport
    }

    private func router(_ stream: String) -> Router {
        if let existing = routers[stream] { return existing }
        let created = Router(stream: stream, relay: relay)
        routers[stream] = created
        return created
    }

    private func dropIfEmpty(_ router: Router) {
        if let ingress = ingresses[router.stream] {
            if router.sinks.isEmpty { closeRelayed(router, ingress) }
        } else if router.isEmpty {
            routers[router.stream] = nil
        }
    }
}
