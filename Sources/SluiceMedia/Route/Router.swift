import SluiceVocabulary
import SluiceWire

/// One stream on one worker: its source and the consumers of its players. On the stream's
/// home worker the source is the publisher's `Producer` (when there is one), and the router
/// also hands each packet once to every other worker with players of the stream (its relay
/// targets, `WorkerRelay`). On those workers the source is a `RelayIngress`. A player that
/// waits for a publisher stays attached while the source comes and goes.
///
/// Every receiver of the packets is a `StreamSink` in one list: players' consumers, relay
/// links, recordings. Sinks see the stream only as a `StreamUpstream`: the router answers
/// their reads from the source and collects their key-frame requests.
final class Router {
    let stream: String
    /// This worker's relay, through which a home router hands packets to other workers (nil in
    /// tests that build a router alone).
    let relay: WorkerRelay?
    private(set) var source: (any StreamSource)?

    /// What the fan-out reads for every packet, in memory the router owns (freed in deinit)
    /// rather than stored `var`s: a stored array that `append` and `removeAll` mutate is read
    /// under a dynamic exclusivity check each time (docs/design.md, hot-path rule 8).
    private struct FanOut {
        /// Every receiver of the stream's packets on this worker (`StreamSink`): players'
        /// consumers, relay links, recordings, observers, in the order they joined.
        var sinks: [StreamSink] = []
        /// The other workers with players of this stream (home router only).
        var targets: [RelayTarget] = []
        /// The video layers other workers' players need (home router; by worker index), as
        /// their ingresses last said.
        var remoteWanted: [Int: UInt32] = [:]
        /// Set when a player's need of layers may have changed, taken by the source.
        var wantedChanged = true
        /// Each video layer's last key frame, by layer index: the key-frame cache of instant
        /// join, together with the source's stored packets.
        var keyFrames: [KeyFrameMark] = []
    }
    private let fanOut = OwnedState(FanOut())
    /// Every sink of the stream, in join order (a copy: off the packet path).
    var sinks: [StreamSink] { fanOut.sinks }
    /// Stream-wide mute (publisher's or server's), applied by every consumer.
    private(set) var audioMuted = false
    private(set) var videoMuted = false
    private(set) var measuredLayers: [LayerSelector.Layer] = []
    private(set) var spatialLayers: [LayerSelector.Layer] = []

    /// True while the source is calling in (fan-out, layer measurements): key-frame
    /// requests then wait in `requested` and go back to it as the call's result.
    private var producerCalling = false
    private var requested = KeyFrameRequests()

    init(stream: String, relay: WorkerRelay? = nil) {
        self.stream = stream
        self.relay = relay
    }

    var isEmpty: Bool { source == nil && fanOut.sinks.isEmpty && fanOut.targets.isEmpty }

    func attach(_ source: any StreamSource) {
        self.source = source
        // A new publisher numbers its packets anew: nothing cached may start a player. (While
        // there is none, `cachedKeyFrame` answers nil.)
        fanOut.keyFrames.removeAll()
        source.router = self
        measuredLayers = source.selectorLayers(now: MonotonicClock.nowMicros())
        spatialLayers = source.spatialLayers(now: MonotonicClock.nowMicros())
        for sink in fanOut.sinks { sink.sourceChanged(present: true) }
        publishSnapshot()
    }

    func detach(_ source: any StreamSource) {
        guard self.source === source else { return }
        self.source = nil
        source.router = nil
        measuredLayers = []
        spatialLayers = []
        for sink in fanOut.sinks { sink.sourceChanged(present: false) }
        publishSnapshot()
    }

    /// A receiver of the stream's packets from now on: a player, a relay link to another
    /// node, a recording, an observer.
    func add(_ sink: StreamSink) {
        fanOut.sinks.append(sink)
        sink.upstream = self
        sink.sourceChanged(present: source != nil)
        wantedLayersChanged()
    }

    func remove(_ sink: StreamSink) {
        fanOut.sinks.removeAll { $0 === sink }
        wantedLayersChanged()
    }

    /// The source's sender report of `kind` (video: of `layer`), for the recordings' clocks.
    func senderReport(kind: MediaKind, layer: Int, ntp: UInt64, rtpTimestamp: UInt32) {
        for sink in fanOut.sinks { sink.senderReport(kind: kind, layer: layer, ntp: ntp, rtpTimestamp: rtpTimestamp) }
    }

    /// Another worker has players of this stream: hand it every packet from now on, and tell
    /// it what the source is.
    func addTarget(_ target: RelayTarget) {
        fanOut.targets.append(target)
        relay?.sendSnapshot(snapshot(), to: target, measured: true)
    }

    func removeTarget(_ target: RelayTarget) {
        fanOut.targets.removeAll { $0 == target }
        if fanOut.remoteWanted.removeValue(forKey: target.worker) != nil { wantedLayersChanged() }
    }

    // MARK: Layers the players need (docs/cluster.md, "Layers on a link")

    /// The video layers this stream's players need now, bit i for layer i: on this worker,
    /// each player's current and target layer; on the home, also what the other workers'
    /// players need. An edge's link producer asks its origin for these; a relaying worker's
    /// ingress tells its home. Off the packet path (a few times a second, or on a change).
    func wantedVideoLayers() -> UInt32 {
        var mask: UInt32 = 0
        for sink in fanOut.sinks { mask |= sink.wantedVideoLayers }
        for remote in fanOut.remoteWanted.values { mask |= remote }
        return mask
    }

    /// True once after a player's need may have changed (the source then recomputes).
    func takeWantedLayersChanged() -> Bool {
        guard fanOut.wantedChanged else { return false }
        fanOut.wantedChanged = false
        return true
    }

    /// Home router: what the players on `worker` need now.
    func setRemoteWanted(_ mask: UInt32, worker: Int) {
        guard fanOut.remoteWanted[worker] != mask else { return }
        fanOut.remoteWanted[worker] = mask
        wantedLayersChanged()
    }

    /// The fan-out: one packet from the source to every sink, then once to every other
    /// worker with players. Synchronous, on the worker thread, in the receive batch
    /// (docs/design.md "The packet path"). Returns the key frames the sinks asked for
    /// meanwhile; the source sends them.
    @inline(__always)
    func forward(_ packet: borrowing ForwardedPacket) -> KeyFrameRequests {
        if isMuted(packet.kind) { return KeyFrameRequests() }
        if packet.kind == .video { markKeyFrame(packet) }
        producerCalling = true
        // The local copy keeps every sink alive to the end of the loop, whatever a call does
        // to the router's list, so each is called without a retain and release of its own
        // (`StreamSink` says why that matters).
        let receivers = fanOut.sinks
        for index in receivers.indices {
            Unmanaged.passUnretained(receivers[index])._withUnsafeGuaranteedRef { $0.forward(packet) }
        }
        producerCalling = false
        if !fanOut.targets.isEmpty, let relay { relay.hand(packet, to: fanOut.targets) }
        return takeRequests()
    }

    /// Before the sinks see the packet, so a player that starts from the cache finds it there.
    @inline(__always)
    private func markKeyFrame(_ packet: borrowing ForwardedPacket) {
        let layer = packet.layer
        guard layer >= 0 && layer < 32 else { return }
        if layer >= fanOut.keyFrames.count {
            // Once per layer, the first time it is seen.
            fanOut.keyFrames.append(contentsOf: repeatElement(KeyFrameMark(),
                                                                      count: layer + 1 - fanOut.keyFrames.count))
        }
        fanOut.keyFrames[layer].record(sequence: packet.packet.sequenceNumber, timestamp: packet.packet.timestamp,
                                               isKeyFrame: packet.isKeyFrame, now: packet.now)
    }

    /// The source refreshed its layer measurements (about once a second): every player
    /// reconsiders its layer, off the packet path. Returns the key frames that asks for.
    func layersMeasured(_ layers: [LayerSelector.Layer], now: UInt64) -> KeyFrameRequests {
        measuredLayers = layers
        spatialLayers = source?.spatialLayers(now: now) ?? []
        producerCalling = true
        for sink in fanOut.sinks { sink.layersMeasured(now: now) }
        producerCalling = false
        if !fanOut.targets.isEmpty { publishSnapshot(measured: true) }
        return takeRequests()
    }

    /// A layer's size changed (home router): the relaying workers learn it now, not at the
    /// next measurement.
    func sizesChanged() {
        if !fanOut.targets.isEmpty { publishSnapshot() }
    }

    func setMuted(_ kind: MediaKind, _ muted: Bool) {
        if kind == .audio { audioMuted = muted } else { videoMuted = muted }
        for sink in fanOut.sinks { sink.streamMuteChanged(kind) }
        if kind == .video && !muted { requestKeyFrame(layer: nil) }
        if !fanOut.targets.isEmpty { publishSnapshot() }
    }

    @inline(__always)
    func isMuted(_ kind: MediaKind) -> Bool { kind == .audio ? audioMuted : videoMuted }

    /// Key frames asked for by players on other workers (home router).
    func requestKeyFrames(_ requests: KeyFrameRequests) {
        requested.merge(requests)
        if !producerCalling { source?.requestKeyFrames(takeRequests()) }
    }

    /// What a relaying worker must know of the source now (home router).
    func snapshot() -> SourceSnapshot {
        var snapshot = source?.snapshot(now: MonotonicClock.nowMicros()) ?? SourceSnapshot()
        snapshot.audioMuted = audioMuted
        snapshot.videoMuted = videoMuted
        return snapshot
    }

    private func publishSnapshot(measured: Bool = false) {
        guard let relay, !fanOut.targets.isEmpty else { return }
        let current = snapshot()
        for target in fanOut.targets { relay.sendSnapshot(current, to: target, measured: measured) }
    }

    private func takeRequests() -> KeyFrameRequests {
        let taken = requested
        requested = KeyFrameRequests()
        return taken
    }
}

extension Router {
    /// A relaying worker's news of its source, from the home: the source came, went or
    /// changed. The ingress is this router's source while the home has a publisher.
    func apply(_ snapshot: SourceSnapshot, from ingress: RelayIngress, measured: Bool, now: UInt64) -> KeyFrameRequests {
        ingress.apply(snapshot)
        if snapshot.audioMuted != audioMuted { setMuted(.audio, snapshot.audioMuted) }
        if snapshot.videoMuted != videoMuted { setMuted(.video, snapshot.videoMuted) }
        if snapshot.present && source == nil {
            attach(ingress)
        } else if !snapshot.present && source != nil {
            detach(ingress)
            // A later publisher numbers its packets anew: none of this one's may answer a NACK.
            ingress.releasePackets()
        } else if measured {
            return layersMeasured(ingress.selectorLayers(now: now), now: now)
        }
        return KeyFrameRequests()
    }
}

extension Router: StreamUpstream {
    var hasSource: Bool { source != nil }
    var isSimulcast: Bool { source?.isSimulcast ?? false }

    @inline(__always)
    func wantedLayersChanged() {
        fanOut.wantedChanged = true
    }

    func layerTiming(_ layer: Int) -> (fps: Double, temporalLayers: Int) {
        source?.layerTiming(layer) ?? (0, 1)
    }

    func layerSize(_ layer: Int) -> (width: Int, height: Int) {
        source?.layerSize(layer) ?? (0, 0)
    }

    func layerStats(now: UInt64) -> [LayerStats] {
        source?.layerStats(now: now) ?? []
    }

    func captureMicros(layer: Int, timestamp: UInt32) -> Int64? {
        source?.captureMicros(layer: layer, timestamp: timestamp)
    }

    func storedPacket(layer: Int, sequence: UInt16) -> UnsafeMutableRawBufferPointer? {
        source?.storedPacket(layer: layer, sequence: sequence)
    }

    var dependencyDescriptorID: UInt8? { source?.dependencyDescriptorID }

    func dependencyTargets() -> DependencyTargets? { source?.dependencyTargets() }

    func keyFrameMark(layer: Int) -> KeyFrameMark? {
        guard layer >= 0, layer < fanOut.keyFrames.count else { return nil }
        let mark = fanOut.keyFrames[layer]
        return mark.generation > 0 ? mark : nil
    }

    func cachedKeyFrame(layer: Int, now: UInt64, maxAgeMicros: UInt64) -> KeyFrameMark? {
        guard source != nil, let mark = keyFrameMark(layer: layer), mark.isUsable(now: now, maxAgeMicros: maxAgeMicros),
              storedPacket(layer: layer, sequence: mark.startSequence) != nil else { return nil }
        return mark
    }

    /// Queued while the source is calling in; otherwise (a player's PLI, a player joining,
    /// an unmute) sent at once.
    func requestKeyFrame(layer: Int?) {
        requested.add(layer: layer)
        if !producerCalling { source?.requestKeyFrames(takeRequests()) }
    }
}
