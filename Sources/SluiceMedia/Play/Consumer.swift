import SluiceRTP
import SluiceTransport
import SluiceVocabulary
import SluiceWire

/// The player side of one stream, assembled from its parts: the `Forwarder` decides per
/// packet, the `RTPSender` writes and sends, the `Prober` pads to probe bandwidth, and
/// `PlayerFeedback` reads what the player reports. The consumer itself chooses the layer
/// (`LayerSelector`, off the packet path), carries out decisions, and reports events and
/// stats. It sees its stream only as a `StreamUpstream`.
final class Consumer: StreamSink, WebRTCTransportDelegate, WorkerTickable {
    let parameters: EndpointParameters
    private(set) var constraints: StreamConstraints
    let transport: WebRTCTransport
    var report: (WorkerEvent) -> Void = { _ in }

    let sender: RTPSender
    var feedback: PlayerFeedback

    /// What each packet and each worker tick touch, in memory the consumer owns (`OwnedState`):
    /// as stored `var`s mutated through calls they would each cost a dynamic exclusivity check
    /// per packet (docs/design.md, hot-path rule 8). Worker thread only.
    struct PacketState {
        var forwarder: Forwarder
        var prober = Prober()
        var announcedPlaying = false
        var nextReport: UInt64 = 0
        /// Instant join's walk from a cached key frame to the live edge (`Consumer+CatchUp`),
        /// and its layer (-1: none), the one thing each video packet checks.
        var catchUp: CatchUp?
        var catchUpLayer = -1
        /// The walk's own reading of the cached packets' dependency descriptors (it starts at
        /// the key picture, whose first packet brings the structure); made at the first walk
        /// of a stream that sends them.
        var catchUpDependencies: DependencyTemplateTable?
        /// A VP9 source without the descriptor: its layers, read from the cached packets.
        var catchUpVP9: VP9Dependency?
    }
    let state: OwnedState<PacketState>

    /// `apps[].instantJoin`: start from a layer's cached key frame when there is one.
    let instantJoin: Bool
    /// Starts and switches served from the cache (stats: `cacheStarts`).
    var cacheStarts: UInt64 = 0
    /// A cached key frame whose catch-up sent nothing is not tried again (layer, generation).
    var refusedCache: (layer: Int, generation: UInt32)?
    let videoCodec: CodecKind

    private var hasSource = false
    private let statsBoard: StatsBoard?
    private(set) var quality: ConnectionQuality?
    var targetReason = LayerSelector.Reason.constraints
    var notEnoughBandwidthReported = false
    /// When the estimate first stopped fitting the forwarded layer while the path showed no
    /// congestion (`holdsUncongestedDrop`); nil while it fits.
    var uncongestedDropSince: UInt64?
    /// How long such a shortfall must last before the player steps down for it.
    static let uncongestedDropMicros: UInt64 = 1_500_000
    private var audioMutedByPlayer = false
    private var videoMutedByPlayer = false

    var bandwidthKbps: Double? { feedback.bandwidthKbps }
    var currentLayer: Int? { state.forwarder.currentLayer }
    /// The video layers this player needs now (`LinkLayerRequest.layers`), and the one it
    /// would take were every layer sent (`idealLayer`), so a publisher paused by dynacast
    /// resumes it.
    override var wantedVideoLayers: UInt32 {
        let mask = LinkLayerRequest.layers(current: state.forwarder.currentLayer, target: state.forwarder.targetLayer,
                                           videoEnabled: state.forwarder.video?.enabled ?? false)
        guard mask != 0, let idealLayer else { return mask }
        return mask | LinkLayerRequest.bit(idealLayer)
    }
    /// The layer this player's constraints and bandwidth allow among all the stream's layers,
    /// sent or paused (the chosen one is among those sent).
    var idealLayer: Int?

    init(parameters: EndpointParameters, constraints: StreamConstraints, transport: WebRTCTransport,
         statsBoard: StatsBoard?, instantJoin: Bool = true) {
        self.parameters = parameters
        self.instantJoin = instantJoin
        videoCodec = CodecKind(parameters.video?.codecName ?? "")
        self.constraints = constraints
        self.transport = transport
        self.statsBoard = statsBoard
        let video = parameters.video
        state = OwnedState(PacketState(forwarder: Forwarder(
            audio: parameters.audio.map { _ in Forwarder.Track(enabled: constraints.audio) },
            video: video.map { _ in Forwarder.Track(enabled: constraints.video != nil) },
            rewritesVP8: videoCodec == .vp8)))
        sender = RTPSender(transport: transport, audio: parameters.audio, video: video)
        feedback = PlayerFeedback(audioSSRC: parameters.audio?.localSSRC, videoSSRC: video?.localSSRC)
    }

    /// A publisher arrived or left. The next packet of each kind restarts the output
    /// sequence right after the last one sent, so the player sees no gap.
    override func sourceChanged(present: Bool) {
        hasSource = present
        state.forwarder.sourceChanged()
        endCatchUp()
        state.announcedPlaying = false
        upstream?.wantedLayersChanged()
        if present {
            let now = MonotonicClock.nowMicros()
            selectLayer(now: now)
            if transport.isConnected { requestKeyFrameUnlessCached(layer: nil, now: now) }
        }
    }

    // MARK: Forwarding (hot path)

    @inline(__always)
    override func forward(_ item: borrowing ForwardedPacket) {
        guard transport.isConnected else { return }
        if state.catchUpLayer >= 0 && item.kind == .video && item.layer == state.catchUpLayer {
            // The walk reads this packet from the buffer when its turn comes.
            continueCatchUp(now: item.now)
            return
        }
        let decision = state.forwarder.decide(item) { layer, timestamp in
            upstream?.captureMicros(layer: layer, timestamp: timestamp)
        }
        switch decision {
        case .drop:
            return
        case .waitForKeyFrame(let layer):
            keyFrameWanted(layer: layer, packetLayer: item.layer, now: item.now)
        case .forward(let rewrite):
            deliver(item, rewrite)
        }
    }

    /// Sends a packet the forwarder passed, live or cached.
    @inline(__always)
    private func deliver(_ item: borrowing ForwardedPacket, _ rewrite: ForwardRewrite) {
        if let layerSwitch = rewrite.layerSwitch { layerSwitched(layerSwitch) }
        guard item.dependency == nil ? sender.send(item, rewrite) : sender.sendDescribed(item, rewrite) else { return }
        if !state.announcedPlaying {
            state.announcedPlaying = true
            report(.playing(parameters.handle))
        }
    }

    /// The forwarder waits for a key frame: start from the cached one, or ask the publisher.
    @inline(never)
    private func keyFrameWanted(layer: Int?, packetLayer: Int, now: UInt64) {
        if instantJoin && startCatchUp(layer: layer ?? packetLayer, now: now) { return }
        upstream?.requestKeyFrame(layer: layer)
    }

    /// A cached packet of the catch-up: decided and sent like a live one, but what it waits for
    /// starts nothing (the walk goes on to the live edge).
    @inline(never)
    func sendCached(_ item: borrowing ForwardedPacket) {
        let decision = state.forwarder.decide(item) { layer, timestamp in
            upstream?.captureMicros(layer: layer, timestamp: timestamp)
        }
        guard case .forward(let rewrite) = decision else { return }
        // The walk reads no dependency descriptor: what it sends goes whole, so the player
        // holds every frame up to the live edge, and the first decode target it is given
        // starts with the next picture.
        if item.dependency == nil { state.forwarder.forwardedByLayers = true }
        deliver(item, rewrite)
    }

    private func layerSwitched(_ layerSwitch: LayerSwitch) {
        guard let upstream, upstream.isSimulcast || state.forwarder.choosesSpatialLayers else { return }
        upstream.wantedLayersChanged()
        var size = upstream.layerSize(layerSwitch.to)
        if state.forwarder.choosesSpatialLayers, let layer = upstream.spatialLayers.first(where: { $0.index == layerSwitch.to }) {
            size = (layer.width, layer.height)
        }
        let reason = layerSwitch.from == nil ? LayerSelector.Reason.constraints : targetReason
        report(.layerChanged(parameters.handle, layer: layerSwitch.to, width: size.width, height: size.height,
                             reason: reason))
    }

    override func layersMeasured(now: UInt64) { selectLayer(now: now) }

    // MARK: Constraints and mutes

    func update(_ constraints: StreamConstraints) {
        self.constraints = constraints
        selectLayer(now: MonotonicClock.nowMicros())
        state.forwarder.audio?.enabled = constraints.audio && !audioMutedByPlayer
        let videoEnabled = constraints.video != nil && !videoMutedByPlayer
        if state.forwarder.video?.enabled == false && videoEnabled { state.forwarder.restart(.video) }
        if let video = state.forwarder.video, video.enabled != videoEnabled { upstream?.wantedLayersChanged() }
        state.forwarder.video?.enabled = videoEnabled
    }

    /// The player's own mute of what it receives. Resuming video waits for a key frame and
    /// continues the sequence right after the last packet sent, so there is no gap.
    func setMuted(_ kind: MediaKind, _ muted: Bool) {
        if kind == .audio { audioMutedByPlayer = muted } else { videoMutedByPlayer = muted }
        update(constraints)
        if kind == .video && !muted {
            state.forwarder.restart(.video)
            endCatchUp()
            requestKeyFrameUnlessCached(layer: nil, now: MonotonicClock.nowMicros())
        }
    }

    /// The stream-wide mute of `kind` changed; video resumes on a key frame.
    override func streamMuteChanged(_ kind: MediaKind) {
        state.forwarder.restart(kind)
        if kind == .video { endCatchUp() }
    }

    // MARK: Transport delegate

    func transportDidConnect(_ transport: WebRTCTransport) {
        guard hasSource else { return }
        let now = MonotonicClock.nowMicros()
        if startCatchUpOnConnect(now: now) { return }
        requestKeyFrameUnlessCached(layer: nil, now: now)
    }

    func transport(_ transport: WebRTCTransport, didFail failure: TransportFailure) {
        report(.failed(parameters.handle, FailureReason(failure)))
    }

    func transport(_ transport: WebRTCTransport, didReceiveRTP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        // A player sends no media; ignore it.
    }

    func transport(_ transport: WebRTCTransport, didReceiveRTCP bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        var iterator = RTCPCompoundIterator(UnsafeRawBufferPointer(bytes))
        while let (packet, _) = iterator.next() {
            let action = feedback.receive(packet, history: sender.state.history, sentKbps: sender.sentKbps,
                                          videoKbps: sender.state.video?.bitrate.kbps ?? 0, prober: &state.prober,
                                          now: now)
            switch action {
            case .none:
                continue
            case .keyFrame:
                upstream?.requestKeyFrame(layer: nil)
            case .reselect:
                selectLayer(now: now)
            case .retransmit(let nack):
                guard let upstream else { continue }
                for pair in nack.pairs {
                    pair.forEachLost { sender.retransmit($0, from: upstream, now: now) }
                }
            }
        }
    }

    // MARK: Ticks and reports

    func tick(now: UInt64) {
        if state.catchUpLayer >= 0 { continueCatchUp(now: now) }
        if state.prober.isProbing {
            if now < state.prober.until {
                sendPadding(now: now)
            } else if state.prober.stop(estimate: &feedback.estimate, now: now) {
                selectLayer(now: now)
            }
        }
        guard now >= state.nextReport else { return }
        state.nextReport = now + 1_000_000
        sender.sampleRates(now: now)
        if transport.isConnected { sender.sendSenderReports(now: now) }
        if feedback.haveReceiverReport {
            let current = ConnectionQuality(lossFraction: feedback.remoteFractionLost, jitterMs: feedback.remoteJitterMs,
                                            rttMs: feedback.rttMillis)
            if current.level != quality?.level {
                report(.connectionQuality(parameters.handle, score: current.score, level: current.level))
            }
            quality = current
        }
        statsBoard?.publish(stats())
    }

    /// A catch-up and a probe pace packets at every turn; otherwise only the reports are due.
    /// Both start outside a tick (`startCatchUp`, `selectLayer`), which calls `tickSoon`.
    func nextTick(after now: UInt64) -> UInt64 {
        state.catchUpLayer >= 0 || state.prober.isProbing ? now + MediaWorker.tickMicros : state.nextReport
    }

    /// Padding between frames only, on video that is running, at the probe's rate.
    private func sendPadding(now: UInt64) {
        let budget = state.prober.tickCredit(tickMicros: MediaWorker.tickMicros)
        guard budget > 0, let video = state.forwarder.video, video.enabled, !video.needsRestart,
              sender.videoAtFrameBoundary else { return }
        let sent = sender.sendPadding(budget: budget, now: now) {
            state.forwarder.insertVideoPacket()
        }
        state.prober.spent(sent)
    }
}
