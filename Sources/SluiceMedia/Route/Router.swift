import SluiceVocabulary
import SluiceWire

/// One stream on one worker: its publisher's producer (when there is one) and the
/// consumers of its players. A player that waits for a publisher stays attached while the
/// producer comes and goes.
///
/// Consumers see the stream only as a `StreamUpstream`: the router answers their reads from
/// the producer and collects their key-frame requests.
final class Router {
    let stream: String
    private(set) var producer: Producer?
    /// The players, in memory the router owns (freed in deinit) rather than a stored `var`:
    /// the fan-out reads the list for every packet, and a stored array that `append` and
    /// `removeAll` mutate is read under a dynamic exclusivity check each time (docs/design.md,
    /// hot-path rule 8).
    private(set) var consumers: [Consumer] {
        _read { yield consumerList.pointee }
        _modify { yield &consumerList.pointee }
    }
    private let consumerList: UnsafeMutablePointer<[Consumer]>
    /// Stream-wide mute (publisher's or server's), applied by every consumer.
    private(set) var audioMuted = false
    private(set) var videoMuted = false
    private(set) var measuredLayers: [LayerSelector.Layer] = []

    /// True while the producer is calling in (fan-out, layer measurements): key-frame
    /// requests then wait in `requested` and go back to it as the call's result.
    private var producerCalling = false
    private var requested = KeyFrameRequests()

    init(stream: String) {
        self.stream = stream
        consumerList = .allocate(capacity: 1)
        consumerList.initialize(to: [])
    }

    deinit {
        consumerList.deinitialize(count: 1)
        consumerList.deallocate()
    }

    var isEmpty: Bool { producer == nil && consumers.isEmpty }

    func attach(_ producer: Producer) {
        self.producer = producer
        producer.router = self
        measuredLayers = producer.selectorLayers(now: MonotonicClock.nowMicros())
        for consumer in consumers { consumer.sourceChanged(present: true) }
    }

    func detach(_ producer: Producer) {
        guard self.producer === producer else { return }
        self.producer = nil
        producer.router = nil
        measuredLayers = []
        for consumer in consumers { consumer.sourceChanged(present: false) }
    }

    func add(_ consumer: Consumer) {
        consumers.append(consumer)
        consumer.upstream = self
        consumer.sourceChanged(present: producer != nil)
    }

    func remove(_ consumer: Consumer) {
        consumers.removeAll { $0 === consumer }
    }

    /// The fan-out: one packet from the producer to every consumer. Synchronous, on the
    /// worker thread, in the receive batch (docs/design.md "The packet path"). Returns the
    /// key frames the consumers asked for meanwhile; the producer sends them.
    @inline(__always)
    func forward(_ packet: borrowing ForwardedPacket) -> KeyFrameRequests {
        if isMuted(packet.kind) { return KeyFrameRequests() }
        producerCalling = true
        for consumer in consumers { consumer.forward(packet) }
        producerCalling = false
        return takeRequests()
    }

    /// The producer refreshed its layer measurements (about once a second): every consumer
    /// reconsiders its layer, off the packet path. Returns the key frames that asks for.
    func layersMeasured(_ layers: [LayerSelector.Layer], now: UInt64) -> KeyFrameRequests {
        measuredLayers = layers
        producerCalling = true
        for consumer in consumers { consumer.selectLayer(now: now) }
        producerCalling = false
        return takeRequests()
    }

    func setMuted(_ kind: MediaKind, _ muted: Bool) {
        if kind == .audio { audioMuted = muted } else { videoMuted = muted }
        for consumer in consumers { consumer.streamMuteChanged(kind) }
        if kind == .video && !muted { requestKeyFrame(layer: nil) }
    }

    @inline(__always)
    func isMuted(_ kind: MediaKind) -> Bool { kind == .audio ? audioMuted : videoMuted }

    private func takeRequests() -> KeyFrameRequests {
        let taken = requested
        requested = KeyFrameRequests()
        return taken
    }
}

extension Router: StreamUpstream {
    var isSimulcast: Bool { producer?.isSimulcast ?? false }

    func layerTiming(_ layer: Int) -> (fps: Double, temporalLayers: Int) {
        producer?.layerTiming(layer) ?? (0, 1)
    }

    func layerSize(_ layer: Int) -> (width: Int, height: Int) {
        producer?.layerSize(layer) ?? (0, 0)
    }

    func layerStats(now: UInt64) -> [LayerStats] {
        producer?.layerStats(now: now) ?? []
    }

    func captureMicros(layer: Int, timestamp: UInt32) -> Int64? {
        producer?.captureMicros(layer: layer, timestamp: timestamp)
    }

    func storedPacket(layer: Int, sequence: UInt16) -> UnsafeMutableRawBufferPointer? {
        producer?.storedPacket(layer: layer, sequence: sequence)
    }

    /// Queued while the producer is calling in; otherwise (a player's PLI, a player joining,
    /// an unmute) sent at once.
    func requestKeyFrame(layer: Int?) {
        requested.add(layer: layer)
        if !producerCalling { producer?.requestKeyFrames(takeRequests()) }
    }
}
